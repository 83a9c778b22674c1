/**
 * What the desktop app tells the operator through system notifications, decided from what the
 * local engine's change feed points at: a session whose browser crashed, a recording that is
 * ready, an invocation that failed. Pure rules over the API's own objects (engine-watch.ts
 * fetches them and shows the result), each said once, and only for what happened after the
 * app started watching — reconnecting or a restart never replays old news.
 */
import type { Session } from '../shared/wire/sessions.js';
import type { Invocation } from '../shared/wire/apps.js';

export interface DesktopNotice {
  /** Said once per key. */
  key: string;
  title: string;
  body: string;
  /** The console route a click opens (`#…`). */
  route: string;
}

export interface ReplayFacts {
  replay_id: string;
  finished_at: string | null;
  /** Its file is there to play (a finished recording may also have failed). */
  ready: boolean;
}

export type SessionFacts = Pick<Session, 'session_id' | 'name' | 'ended_reason' | 'deleted_at'>;
export type InvocationFacts = Pick<Invocation, 'id' | 'app_name' | 'action_name' | 'status' | 'status_reason' | 'started_at' | 'finished_at'>;

const MAX_BODY = 180;
const clip = (s: string) => (s.length > MAX_BODY ? `${s.slice(0, MAX_BODY - 1)}…` : s);
const sessionLabel = (s: Pick<Session, 'session_id' | 'name'>) => (s.name ? `${s.name} (${s.session_id.slice(0, 8)})` : s.session_id);

export class NoticeRules {
  private readonly said = new Set<string>();

  /** `since`: when watching began (ms); what happened before is not news. */
  constructor(private readonly since: number) {}

  session(s: SessionFacts, replays: ReplayFacts[] = []): DesktopNotice[] {
    const out: DesktopNotice[] = [];
    if (s.ended_reason === 'browser_crashed' && this.recent(s.deleted_at))
      out.push({
        key: `session:${s.session_id}:crashed`,
        title: 'Session crashed',
        body: `The browser of ${sessionLabel(s)} crashed. Its telemetry, logs and replays are kept.`,
        route: `/sessions/${s.session_id}`,
      });
    for (const r of replays)
      if (r.ready && this.recent(r.finished_at))
        out.push({
          key: `replay:${r.replay_id}:ready`,
          title: 'Recording ready',
          body: `The replay of ${sessionLabel(s)} is ready to watch.`,
          route: `/sessions/${s.session_id}/replays`,
        });
    return this.fresh(out);
  }

  invocation(inv: InvocationFacts): DesktopNotice[] {
    if (inv.status !== 'failed' || !this.recent(inv.finished_at ?? inv.started_at)) return [];
    const why = inv.status_reason ? `: ${inv.status_reason}` : '';
    return this.fresh([
      {
        key: `invocation:${inv.id}:failed`,
        title: 'Invocation failed',
        body: clip(`${inv.app_name} · ${inv.action_name}${why}`),
        route: `/invocations/${inv.id}`,
      },
    ]);
  }

  /** Whether a finished recording could still be news (worth asking the engine whether it plays). */
  replayPending(r: Pick<ReplayFacts, 'replay_id' | 'finished_at'>): boolean {
    return this.recent(r.finished_at) && !this.said.has(`replay:${r.replay_id}:ready`);
  }

  private recent(at: string | null | undefined): boolean {
    const t = at ? Date.parse(at) : NaN;
    return Number.isFinite(t) && t >= this.since;
  }

  private fresh(list: DesktopNotice[]): DesktopNotice[] {
    const out = list.filter((n) => !this.said.has(n.key));
    for (const n of out) this.said.add(n.key);
    return out;
  }
}
