/**
 * Per-session log rings of the session's own services (what `/logs/stream?source=supervisor`
 * shows): `browser` (Chromium's stderr/stdout), `display` (Xvfb), `recorder` (ffmpeg of
 * replays), `session` (lifecycle lines of the session manager: launch, restart, end).
 * Producers call `append(sessionId, service, line)`; one per engine (`services.serviceLogs`, compose.ts).
 * Each (session, service) keeps its last lines in a bounded ring so a late reader sees recent
 * history; subscribers get new lines live and an end call when the session's logs are dropped.
 */
export const SUPERVISOR_SERVICES = ['browser', 'display', 'recorder', 'session'] as const;

export interface ServiceLogLine {
  timestamp: string;
  message: string;
}

interface Ring {
  lines: ServiceLogLine[];
  listeners: Set<(l: ServiceLogLine) => void>;
}

const MAX_LINES = 2000;
const MAX_LINE_CHARS = 16 * 1024;

export class ServiceLogs {
  private sessions = new Map<string, { rings: Map<string, Ring>; onEnd: Set<() => void> }>();
  /** Recently ended sessions: late output of their dying processes is dropped, not kept forever. */
  private ended = new Set<string>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  private ring(sessionId: string, service: string): Ring {
    let s = this.sessions.get(sessionId);
    if (!s) this.sessions.set(sessionId, (s = { rings: new Map(), onEnd: new Set() }));
    let r = s.rings.get(service);
    if (!r) s.rings.set(service, (r = { lines: [], listeners: new Set() }));
    return r;
  }

  /** Appends one line (or several, split on newlines) to a service's ring. */
  append(sessionId: string, service: string, text: string): void {
    if (this.ended.has(sessionId)) return;
    const r = this.ring(sessionId, service);
    for (const raw of text.split(/\r?\n/)) {
      if (raw === '') continue;
      const line = { timestamp: this.now().toISOString(), message: raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) : raw };
      r.lines.push(line);
      if (r.lines.length > MAX_LINES) r.lines.shift();
      for (const fn of r.listeners) fn(line);
    }
  }

  /** A line feeder for a child stream: buffers partial lines between chunks. */
  feeder(sessionId: string, service: string): (chunk: Buffer | string) => void {
    let partial = '';
    return (chunk) => {
      const text = partial + chunk.toString();
      const cut = text.lastIndexOf('\n');
      if (cut < 0) {
        partial = text.length > MAX_LINE_CHARS ? '' : text;
        if (text.length > MAX_LINE_CHARS) this.append(sessionId, service, text);
        return;
      }
      partial = text.slice(cut + 1);
      this.append(sessionId, service, text.slice(0, cut));
    };
  }

  /** Service names valid for a session: the fixed list plus any a producer has used. */
  services(sessionId: string): string[] {
    const extra = [...(this.sessions.get(sessionId)?.rings.keys() ?? [])].filter((n) => !(SUPERVISOR_SERVICES as readonly string[]).includes(n));
    return [...SUPERVISOR_SERVICES, ...extra.sort()];
  }

  /** Replays the ring then streams new lines; `onEnd` runs when the session's logs end. */
  subscribe(sessionId: string, service: string, fn: (l: ServiceLogLine) => void, onEnd: () => void, follow = true): () => void {
    const r = this.ring(sessionId, service);
    for (const l of r.lines.slice()) fn(l);
    if (!follow) return () => {};
    r.listeners.add(fn);
    const s = this.sessions.get(sessionId)!;
    s.onEnd.add(onEnd);
    return () => {
      r.listeners.delete(fn);
      s.onEnd.delete(onEnd);
    };
  }

  /** Every service's retained lines (the post-mortem keeps them once the session ended). */
  snapshot(sessionId: string): Record<string, ServiceLogLine[]> {
    const out: Record<string, ServiceLogLine[]> = {};
    for (const [name, r] of this.sessions.get(sessionId)?.rings ?? []) if (r.lines.length) out[name] = r.lines.slice();
    return out;
  }

  /** Drops a session's rings and ends its subscribers (call when the session ends). */
  endSession(sessionId: string): void {
    this.ended.add(sessionId);
    if (this.ended.size > 10_000) this.ended.delete(this.ended.values().next().value as string);
    const s = this.sessions.get(sessionId);
    if (!s) return;
    this.sessions.delete(sessionId);
    for (const fn of [...s.onEnd]) fn();
  }
}

/** A `(service, chunk)` sink for one session's child processes, splitting output into lines. */
export function serviceLogSink(logs: ServiceLogs, sessionId: string): (service: string, chunk: string) => void {
  const feeders = new Map<string, (chunk: string) => void>();
  return (service, chunk) => {
    let feed = feeders.get(service);
    if (!feed) feeders.set(service, (feed = logs.feeder(sessionId, service)));
    feed(chunk);
  };
}
