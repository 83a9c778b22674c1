/**
 * Concurrency accounting, done inside the transaction that inserts the session row so two
 * concurrent creates can never both take the last slot: PostgreSQL locks the org row
 * (`FOR UPDATE`, which also serializes nodes); SQLite's single Kysely connection already runs
 * transactions one at a time. Pool reservations add to the org count through counters the
 * pools feature registers.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { DialectName } from '../../store/database.js';
import { DomainError } from '../../../shared/errors/domain-error.js';

/** Browsers held for an org (or one project) that are not running session rows, e.g. idle pool browsers. */
export type ReservationCounter = (trx: Transaction<Database>, orgId: string, projectId?: string) => Promise<number>;

export const RETRY_AFTER_SECONDS = 5;

export class SessionLimits {
  private readonly counters: ReservationCounter[] = [];

  constructor(
    private readonly dialect: DialectName,
    private readonly orgMax: () => number,
  ) {}

  /** Pools register how many browsers they hold in reserve (counted against the org and project caps). */
  addReservationCounter(fn: ReservationCounter): void {
    this.counters.push(fn);
  }

  /**
   * Browsers counted against the org's cap right now: running session rows plus what pools
   * hold in reserve (`GET /org/limits`'s `concurrent_sessions_used`). A snapshot, not a lock.
   */
  async inUse(db: Kysely<Database>, orgId: string): Promise<number> {
    return db.transaction().execute((trx) => this.running(trx, orgId));
  }

  /** Locks the org's accounting for the rest of the transaction (a no-op on SQLite, see above). */
  async lock(trx: Transaction<Database>, orgId: string): Promise<void> {
    if (this.dialect === 'postgres') await sql`select id from orgs where id = ${orgId} for update`.execute(trx);
  }

  private async running(trx: Transaction<Database>, orgId: string, projectId?: string): Promise<number> {
    let q = trx
      .selectFrom('browser_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .where('deleted_at', 'is', null);
    if (projectId) q = q.where('project_id', '=', projectId);
    const row = await q.executeTakeFirstOrThrow();
    let n = Number(row.n);
    for (const c of this.counters) n += await c(trx, orgId, projectId);
    return n;
  }

  /** The project's effective cap: its own override, else the org default; null/0 = no cap. */
  async projectCap(trx: Transaction<Database>, orgId: string, projectId: string): Promise<number | null> {
    const p = await trx.selectFrom('projects').select('max_concurrent_sessions').where('id', '=', projectId).executeTakeFirst();
    if (p?.max_concurrent_sessions) return p.max_concurrent_sessions;
    const o = await trx.selectFrom('orgs').select('default_project_max_concurrent_sessions').where('id', '=', orgId).executeTakeFirst();
    return o?.default_project_max_concurrent_sessions || null;
  }

  /** Throws 429 when one more browser would exceed the org or project cap. Call after `lock`. */
  async assertSlot(trx: Transaction<Database>, orgId: string, projectId: string): Promise<void> {
    return this.assertSlots(trx, orgId, projectId, 1);
  }

  /** Throws 429 unless `n` more browsers fit under the org and project caps (pool reservations). Call after `lock`. */
  async assertSlots(trx: Transaction<Database>, orgId: string, projectId: string, n: number): Promise<void> {
    const orgMax = this.orgMax();
    const orgRunning = await this.running(trx, orgId);
    if (orgRunning + n > orgMax) {
      throw DomainError.tooMany(`the organization's concurrency limit of ${orgMax} browsers is reached`, 'concurrency_limit_exceeded', RETRY_AFTER_SECONDS);
    }
    const cap = await this.projectCap(trx, orgId, projectId);
    if (cap !== null && (await this.running(trx, orgId, projectId)) + n > cap) {
      throw DomainError.tooMany(`the project's concurrency limit of ${cap} browsers is reached`, 'project_concurrency_limit_exceeded', RETRY_AFTER_SECONDS);
    }
  }
}
