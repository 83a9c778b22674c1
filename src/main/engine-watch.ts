/**
 * Watches the local engine for the tray and notifications: its state and running sessions
 * (`status()`, pushed to `onStatus`), and the change feed's events, which it follows to the
 * objects they name over the engine's own API (as the launch key) and hands to the notice
 * rules (desktop-notifications.ts). The engine runs in this process, so the feed is its change
 * bus directly; the objects still come through the API, as any client sees them.
 */
import type { EngineStatusInfo } from '../shared/ipc/contract.js';
import type { Session } from '../shared/wire/sessions.js';
import type { Invocation } from '../shared/wire/apps.js';
import type { ReplayInfo } from '../shared/wire/session-replays.js';
import type { ChangeEvent } from '../shared/wire/changes.js';
import type { EngineHost } from './engine-host.js';
import { NoticeRules, type DesktopNotice, type ReplayFacts } from './desktop-notifications.js';

export interface EngineWatchDeps {
  host: EngineHost;
  notify: (n: DesktopNotice) => void;
  onStatus: (s: EngineStatusInfo) => void;
  now?: () => number;
  log?: (line: string) => void;
}

export class EngineWatch {
  private readonly rules: NoticeRules;
  private unsubscribe: (() => void) | undefined;
  /** Checks in flight, awaited by `idle()` (tests, and a quit that wants the last notices). */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly d: EngineWatchDeps) {
    this.rules = new NoticeRules((d.now ?? Date.now)());
  }

  status(): EngineStatusInfo {
    const s = this.d.host.status();
    const sessions = this.d.host.currentEngine()?.services.sessions.all().length ?? 0;
    return { ...s, sessions };
  }

  /** Call on every host state change: follows the running engine's change bus, and reports. */
  engineChanged(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const engine = this.d.host.currentEngine();
    if (engine) {
      this.unsubscribe = engine.context.changes.on(({ event }) => {
        if (event.resource === 'session') this.d.onStatus(this.status());
        this.track(this.follow(event));
      });
    }
    this.d.onStatus(this.status());
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private track(p: Promise<void>): void {
    const done = p
      .catch((err) => this.d.log?.(`desktop notices: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  private async follow(event: ChangeEvent): Promise<void> {
    if (event.resource === 'session') {
      const id = encodeURIComponent(event.id);
      const session = await this.get<Session>(`/browsers/${id}?include_deleted=true`);
      if (!session) return;
      const replays = (await this.get<ReplayInfo[]>(`/browsers/${id}/replays`)) ?? [];
      const facts: ReplayFacts[] = [];
      for (const r of replays)
        if (this.rules.replayPending(r)) facts.push({ ...r, ready: await this.playable(`/browsers/${id}/replays/${encodeURIComponent(r.replay_id)}`) });
      this.show(this.rules.session(session, facts));
    } else if (event.resource === 'invocation' && event.type === 'upsert') {
      const inv = await this.get<Invocation>(`/invocations/${encodeURIComponent(event.id)}`);
      if (inv) this.show(this.rules.invocation(inv));
    }
  }

  private show(list: DesktopNotice[]): void {
    for (const n of list) this.d.notify(n);
  }

  /** The engine's answer as JSON, or undefined when it has none for this key (404, gone, stopped). */
  private async get<T>(path: string): Promise<T | undefined> {
    const target = this.d.host.current();
    if (!target) return undefined;
    const res = await fetch(target.url + path, { headers: { authorization: `Bearer ${target.apiKey}` } });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    return (await res.json()) as T;
  }

  /** A finished recording's file answers its first byte (a failed one does not). */
  private async playable(path: string): Promise<boolean> {
    const target = this.d.host.current();
    if (!target) return false;
    const res = await fetch(target.url + path, { headers: { authorization: `Bearer ${target.apiKey}`, range: 'bytes=0-0' } });
    await res.body?.cancel();
    return res.status === 200 || res.status === 206;
  }
}
