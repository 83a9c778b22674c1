/**
 * The engine's telemetry (`services.telemetry`): one `SessionTelemetry` per session,
 * attached when the session starts, with its CDP collector, the supervisor's crash reports
 * (`service_crashed`), connection signals from the CDP proxy and live view, and the engine's
 * refusals at its resource limits (`system_limit_reached`, system category: one event type for every limit, `data.resource` says which). When the
 * session ends the buffer closes (streams end) but stays readable for `retainEndedMs`, so
 * `/telemetry/events` can still show what happened just before the end.
 */
import type { SessionHandle } from '../session/session-handle.js';
import { sessionSignals, type SessionSignal } from '../../events/session-signals.js';
import { SessionTelemetry } from './session-telemetry.js';
import { CdpCollector, watchesPageLoads } from './cdp-collector.js';
import type { EventCategory } from './telemetry-event.js';
import type { EmitOptions } from './session-telemetry.js';
import { CdpCommandCounts } from './cdp-command-counts.js';

export interface TelemetryOptions {
  /** Events retained per session (at least 1,024 by default). */
  bufferEvents: number;
  /** Bytes retained per session (screenshots are big). */
  bufferBytes: number;
  /** How long an ended session's events stay readable. */
  retainEndedMs: number;
  screenshotIntervalMs: number;
  now: () => number;
}

export class TelemetryService {
  private readonly sessions = new Map<string, SessionTelemetry>();
  private readonly offSignals: () => void;
  private readonly sweeper: NodeJS.Timeout;
  /** Per session telemetry: resolves once its collector watches the tabs open when it started. */
  private readonly watching = new WeakMap<SessionTelemetry, Promise<void>>();
  /** Per CDP proxy connection: commands excluded or lost, for its cdp_disconnect. */
  private readonly commandCounts = new CdpCommandCounts();

  constructor(readonly opts: TelemetryOptions) {
    this.offSignals = sessionSignals.on((s) => this.onSignal(s));
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(60_000, opts.retainEndedMs)));
    this.sweeper.unref();
  }

  get(sessionId: string): SessionTelemetry | undefined {
    return this.sessions.get(sessionId);
  }

  /**
   * A session's browser is up (the session manager's start listener). When its categories
   * record page loads, resolves once the collector watches every open tab with its domains on —
   * the create waits for that before it opens `start_url`; otherwise nothing to wait for, so
   * sessions that record no loads answer as fast as before.
   */
  sessionStarted(handle: SessionHandle): Promise<void> | void {
    const tel = this.attach(handle);
    if (watchesPageLoads(handle.telemetry.browser)) return this.watching.get(tel);
  }

  /** Starts telemetry for a running session (idempotent). */
  attach(handle: SessionHandle): SessionTelemetry {
    const existing = this.sessions.get(handle.id);
    if (existing && !existing.buffer.closed) return existing;
    const tel = new SessionTelemetry(handle.id, handle.telemetry.browser, { capacity: this.opts.bufferEvents, maxBytes: this.opts.bufferBytes }, this.opts.now);
    this.sessions.set(handle.id, tel);
    const collector = new CdpCollector(handle, tel, { screenshotIntervalMs: this.opts.screenshotIntervalMs, now: this.opts.now });
    const offUpdate = handle.onUpdate((h) => tel.setConfig(h.telemetry.browser));
    let pid = pidOf(handle);
    handle.ready().then(
      () => (pid = pidOf(handle)),
      () => {},
    );
    // A limit of the session's jails refused something (its tasks: fork/clone got EAGAIN): said once.
    const offLimit = handle.onLimitReached?.((hit) =>
      tel.emit('system', 'system_limit_reached', {
        source: { kind: 'local_process' },
        data: { resource: hit.resource, limit: hit.limit, refused: hit.refused },
      }),
    );
    const offRestart = handle.onBrowserRestart(() => {
      tel.emit('system', 'service_crashed', { source: { kind: 'local_process' }, data: { phase: 'running', service_name: 'browser', pid } });
      pid = pidOf(handle);
    });
    handle.scope.defer('telemetry', () => {
      const reason = String((handle.signal.reason as Error | undefined)?.message ?? '');
      if (reason.includes('browser_crashed'))
        tel.emit('system', 'service_crashed', { source: { kind: 'local_process' }, data: { phase: 'gave_up', service_name: 'browser', pid } });
      offUpdate();
      offRestart();
      offLimit?.();
      collector.close();
      tel.end(this.opts.now());
    });
    this.watching.set(tel, collector.start());
    return tel;
  }

  /** Records an event for a session when telemetry runs for it and the category is on. */
  emit(sessionId: string, category: EventCategory, type: string, o: EmitOptions): number {
    return this.sessions.get(sessionId)?.emit(category, type, o) ?? 0;
  }

  private onSignal(s: SessionSignal): void {
    const src = { kind: 'kernel_api' as const };
    switch (s.type) {
      case 'cdp_connect': {
        const connection_id = String(s.connectionId);
        return void this.emit(s.sessionId, 'connection', 'cdp_connect', { source: { ...src, metadata: { connection_id } }, data: { connection_id } });
      }
      case 'cdp_frame':
        return this.commandCounts.frame(this.sessions.get(s.sessionId), String(s.connectionId), s.frame);
      case 'cdp_disconnect': {
        const connection_id = String(s.connectionId);
        const lost = this.commandCounts.end(s.sessionId, connection_id);
        return void this.emit(s.sessionId, 'connection', 'cdp_disconnect', {
          source: { ...src, metadata: { connection_id } },
          data: { duration_ms: s.durationMs, message_count: s.messageCount, reason: s.reason, connection_id, ...lost },
        });
      }
      case 'live_view_connect':
        return void this.emit(s.sessionId, 'connection', 'live_view_connect', { source: src, data: { session_id: s.sessionId } });
      case 'live_view_disconnect':
        return void this.emit(s.sessionId, 'connection', 'live_view_disconnect', { source: src, data: { session_id: s.sessionId, duration_ms: s.durationMs } });
      case 'limit_reached':
        return void this.emit(s.sessionId, 'system', 'system_limit_reached', { source: src, data: { resource: s.limit, scope: s.scope, limit: s.max } });
    }
  }

  /** Lets go of ended sessions' buffers past `retainEndedMs` (its timer calls it; tests too). After that their post-mortem answers. */
  sweep(): void {
    const now = this.opts.now();
    for (const [id, t] of this.sessions) if (t.endedAt !== undefined && now - t.endedAt > this.opts.retainEndedMs) this.sessions.delete(id);
  }

  stop(): void {
    this.offSignals();
    clearInterval(this.sweeper);
    this.sessions.clear();
  }
}

/** The browser's pid when the handle is the engine's SessionRuntime (it exposes `browser`). */
function pidOf(handle: SessionHandle): number | undefined {
  const b = (handle as unknown as { browser?: { pid?: number } }).browser;
  return typeof b?.pid === 'number' ? b.pid : undefined;
}
