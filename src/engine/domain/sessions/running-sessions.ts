/**
 * The sessions running on this node, and who may reach them: by id for a caller of the same org
 * and project (or the one session its JWT names), by id or name through the rows, and for
 * WebSocket upgrades by the session's JWT or a bearer key of its org (session-access.ts). Every
 * lookup that finds one counts as activity.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthContext, Credential } from '../org/auth-context.js';
import type { ApiKeyAuthority } from '../org/api-keys.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { RunningSession } from '../../runtime/session/running-session.js';
import type { SessionRows } from './session-rows.js';
import type { SessionJwt } from './session-jwt.js';
import { authenticateUpgrade } from './session-access.js';

export class RunningSessions {
  private readonly byId = new Map<string, RunningSession>();

  constructor(
    private readonly rows: SessionRows,
    private readonly jwt: SessionJwt,
    private readonly apiKeys: ApiKeyAuthority,
    /** Tells the audit log who an upgrade was accepted for (http/upgrade-identity.ts; injected so domain stays below http/). */
    private readonly noteUpgrade: (req: IncomingMessage, who: Pick<Credential, 'orgId' | 'strategy' | 'userId' | 'email'>) => void,
  ) {}

  add(rt: RunningSession): void {
    this.byId.set(rt.id, rt);
  }

  /** Forgets a session once its teardown is done. */
  remove(id: string): void {
    this.byId.delete(id);
  }

  /** The running session by id, ended or not (until its teardown is done). */
  entry(id: string): RunningSession | undefined {
    return this.byId.get(id);
  }

  all(): RunningSession[] {
    return [...this.byId.values()];
  }

  get(id: string): RunningSession | undefined {
    const rt = this.byId.get(id);
    return rt && !rt.ended ? rt : undefined;
  }

  /** The running session with this id when this caller may reach it (no lookup by name). */
  reachable(auth: AuthContext, id: string): RunningSession | undefined {
    const rt = this.byId.get(id);
    return rt && !rt.ended && rt.orgId === auth.orgId && rt.projectId === auth.projectId && (!auth.sessionId || auth.sessionId === rt.id) ? rt : undefined;
  }

  async require(auth: AuthContext, idOrName: string): Promise<RunningSession> {
    const direct = this.reachable(auth, idOrName);
    if (direct) {
      direct.touch();
      return direct;
    }
    const row = await this.rows.find(auth, idOrName);
    if (!row) throw DomainError.notFound('browser session', idOrName);
    const rt = this.byId.get(row.id);
    if (row.deleted_at || !rt || rt.ended)
      throw new DomainError(404, 'session_ended', `browser session '${idOrName}' has ended${row.ended_reason ? ` (${row.ended_reason})` : ''}`);
    rt.touch();
    return rt;
  }

  /**
   * For WebSocket upgrades on `/browsers/{id}/…` (CDP, BiDi, live view, process attach): the
   * session's JWT or a bearer key of its org. The accepted credential goes to the audit log.
   */
  async requireUpgrade(req: IncomingMessage, url: URL, id: string): Promise<RunningSession> {
    const c = await authenticateUpgrade(req, url, id, this.jwt, this.apiKeys);
    this.noteUpgrade(req, { orgId: c.orgId, strategy: c.strategy, userId: c.userId, email: c.email });
    const rt = this.byId.get(id);
    if (!rt || rt.ended || rt.orgId !== c.orgId || (c.projectId && rt.projectId !== c.projectId)) throw DomainError.notFound('browser session', id);
    rt.touch();
    return rt;
  }
}
