/**
 * The sessions' rows in `browser_sessions` and their wire form: the insert of a create (under the
 * org's limits lock, with its name checked free), the pids a running browser records, the soft
 * delete that ends one, the lookups by id or name a caller may see, and the Session object
 * (session-record.ts) with a fresh JWT in its URLs and its profile's current metadata.
 */
import type { EngineContext } from '../../context.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionLimits } from './session-limits.js';
import type { SessionJwt } from './session-jwt.js';
import type { ProfileService } from './session-hooks.js';
import { sessionDto, type ProfileRef, type SessionDto, type SessionRow } from './session-record.js';
import type { RunningSession } from '../../runtime/session/running-session.js';

const JWT_LIFETIME_MS = 24 * 3600 * 1000;

type Owner = { orgId: string; projectId: string };

export class SessionRows {
  constructor(
    private readonly ctx: EngineContext,
    private readonly jwt: SessionJwt,
    private readonly limits: SessionLimits,
    private readonly profiles: ProfileService,
  ) {}

  private now(): Date {
    return this.ctx.clock.now();
  }

  /** Inserts a create's row in the transaction that takes its slot (pool browsers were counted already) and checks its name free. */
  async insert(auth: AuthContext, row: SessionRow, skipLimits = false): Promise<void> {
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.limits.lock(trx, auth.orgId);
      if (!skipLimits) await this.limits.assertSlot(trx, auth.orgId, auth.projectId);
      if (row.name) await this.assertNameFree(trx, auth, row.name);
      await trx.insertInto('browser_sessions').values(row).execute();
    });
  }

  private async assertNameFree(db: Pick<EngineContext['db'], 'selectFrom'>, auth: AuthContext, name: string): Promise<void> {
    const q = db
      .selectFrom('browser_sessions')
      .select('id')
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('name', '=', name)
      .where('deleted_at', 'is', null);
    if (await q.executeTakeFirst()) throw DomainError.conflict(`a session named '${name}' is already active in this project`, 'session_name_taken');
  }

  /** The running browser's processes (after its start, and after every crash restart). */
  async setPids(id: string, b: { pid: number; pgid: number }, xvfbPid?: number | null): Promise<void> {
    await this.ctx.db
      .updateTable('browser_sessions')
      .set({ pid: b.pid, pgid: b.pgid, ...(xvfbPid !== undefined ? { xvfb_pid: xvfbPid } : {}) })
      .where('id', '=', id)
      .execute();
  }

  /** Soft delete: the row is ended (name free, JWT refused), once, with why and by whom; the change is announced. */
  async markEnded(id: string, owner: Owner, reason: string, uptimeMs: number | null, endedBy?: string): Promise<void> {
    const { numUpdatedRows } = await this.ctx.db
      .updateTable('browser_sessions')
      .set({
        deleted_at: this.now().toISOString(),
        ended_reason: reason,
        ended_by: endedBy ?? null,
        uptime_ms: uptimeMs,
        pid: null,
        pgid: null,
        xvfb_pid: null,
      })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (numUpdatedRows > 0n) this.ctx.changes.delete(owner.orgId, 'session', id, owner.projectId);
  }

  /** The row of a session visible to this caller (by id, or by name among active sessions). */
  async find(auth: AuthContext, idOrName: string, includeDeleted = true): Promise<SessionRow | undefined> {
    const base = this.ctx.db.selectFrom('browser_sessions').selectAll().where('org_id', '=', auth.orgId).where('project_id', '=', auth.projectId);
    let row = await base.where('id', '=', idOrName).executeTakeFirst();
    if (!row) row = await base.where('name', '=', idOrName).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) return undefined;
    if (auth.sessionId && row.id !== auth.sessionId) return undefined;
    if (!includeDeleted && row.deleted_at) return undefined;
    return row;
  }

  /** The active rows of an invocation's sessions, oldest first. */
  byInvocation(auth: AuthContext, invocationId: string): Promise<SessionRow[]> {
    return this.ctx.db
      .selectFrom('browser_sessions')
      .selectAll()
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('invocation_id', '=', invocationId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'asc')
      .execute();
  }

  /** The ids of every session an invocation used, ended ones too (the rows are kept), oldest first. */
  async idsByInvocation(orgId: string, projectId: string, invocationId: string): Promise<string[]> {
    const rows = await this.ctx.db
      .selectFrom('browser_sessions')
      .select('id')
      .where('org_id', '=', orgId)
      .where('project_id', '=', projectId)
      .where('invocation_id', '=', invocationId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * The wire Session object, with a fresh JWT in its URLs. `profile` is the profile's current
   * metadata, read from the profiles table for running and ended sessions alike.
   */
  async dto(row: SessionRow, rt: RunningSession | undefined, profiles?: Map<string, ProfileRef>): Promise<SessionDto> {
    const expires = new Date(this.now().getTime() + JWT_LIFETIME_MS);
    const jwt = await this.jwt.sign({ sessionId: row.id, orgId: row.org_id, projectId: row.project_id }, expires);
    const uptime = rt ? rt.uptimeMs() : this.now().getTime() - Date.parse(row.created_at);
    const profile = row.profile_id ? (profiles ?? (await this.profileRefs([row]))).get(row.profile_id) : undefined;
    return sessionDto(row, { publicUrl: this.ctx.publicUrl(), jwt, uptimeMs: uptime, viewport: rt?.viewport, profile });
  }

  /** Session objects for many rows, with one profiles query. */
  async dtos(rows: SessionRow[], running: (id: string) => RunningSession | undefined): Promise<SessionDto[]> {
    const profiles = await this.profileRefs(rows);
    return Promise.all(rows.map((r) => this.dto(r, running(r.id), profiles)));
  }

  private async profileRefs(rows: SessionRow[]): Promise<Map<string, ProfileRef>> {
    const ids = rows.map((r) => r.profile_id).filter((id): id is string => !!id);
    if (ids.length === 0) return new Map();
    return this.profiles.dtos(ids);
  }
}
