/**
 * Pool rows and the numbers derived from session rows: how many of a pool's browsers are idle
 * or acquired, and how many slots a pool reserves against the concurrency limits — its size
 * minus its browsers that already exist as session rows (so nothing is counted twice).
 */
import type { Kysely, Transaction } from 'kysely';
import type { BrowserPoolTable, Database } from '../../store/schema.js';
import type { PoolConfig, BrowserPool } from '../../../shared/wire/pools.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { DialectName } from '../../store/database.js';
import { DEFAULT_REGION, regionIs } from '../sessions/session-region.js';

export type PoolRow = BrowserPoolTable;

export interface PoolScope {
  orgId: string;
  projectId: string;
}

export function configOf(row: PoolRow): PoolConfig {
  return JSON.parse(row.config) as PoolConfig;
}

export async function findPool(db: Kysely<Database>, scope: PoolScope, idOrName: string): Promise<PoolRow | undefined> {
  const base = db.selectFrom('browser_pools').selectAll().where('org_id', '=', scope.orgId).where('project_id', '=', scope.projectId);
  return (await base.where('id', '=', idOrName).executeTakeFirst()) ?? (await base.where('name', '=', idOrName).executeTakeFirst());
}

export async function getPool(db: Kysely<Database>, scope: PoolScope, idOrName: string): Promise<PoolRow> {
  const p = await findPool(db, scope, idOrName);
  if (!p) throw DomainError.notFound('browser pool', idOrName);
  return p;
}

export async function listPools(
  db: Kysely<Database>,
  scope: PoolScope,
  q: { offset: number; limit: number; name?: string; query?: string; region?: string },
  dialect: DialectName,
): Promise<PoolRow[]> {
  let sel = db.selectFrom('browser_pools').selectAll().where('org_id', '=', scope.orgId).where('project_id', '=', scope.projectId);
  if (q.name !== undefined) sel = sel.where('name', '=', q.name);
  // The region is kept in the pool's config.
  if (q.region) sel = sel.where(regionIs(dialect, 'config', q.region));
  const text = q.query?.trim();
  if (text) sel = sel.where((eb) => eb.or([containsInsensitive('name', text), eb('id', '=', text)]));
  return sel
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .offset(q.offset)
    .limit(q.limit + 1)
    .execute();
}

export async function assertPoolNameFree(db: Kysely<Database> | Transaction<Database>, scope: PoolScope, name: string, exceptId?: string): Promise<void> {
  let q = db.selectFrom('browser_pools').select('id').where('project_id', '=', scope.projectId).where('name', '=', name);
  if (exceptId) q = q.where('id', '!=', exceptId);
  if (await q.executeTakeFirst()) throw DomainError.conflict(`a browser pool named '${name}' already exists`, 'pool_name_taken');
}

/** Live browsers of a pool by state (from session rows: true on every node). */
export async function poolCounts(db: Kysely<Database>, poolId: string): Promise<{ idle: number; acquired: number }> {
  const rows = await db
    .selectFrom('browser_sessions')
    .select(['pool_state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('pool_id', '=', poolId)
    .where('deleted_at', 'is', null)
    .groupBy('pool_state')
    .execute();
  const n = (s: string) => Number(rows.find((r) => r.pool_state === s)?.n ?? 0);
  return { idle: n('idle'), acquired: n('acquired') };
}

/** Slots the org's (or one project's) pools hold beyond their browsers that are already session rows. */
export async function reservedSlots(trx: Transaction<Database>, orgId: string, projectId?: string): Promise<number> {
  let pools = trx.selectFrom('browser_pools').select(['id', 'size']).where('org_id', '=', orgId);
  if (projectId) pools = pools.where('project_id', '=', projectId);
  const rows = await pools.execute();
  if (rows.length === 0) return 0;
  const live = await trx
    .selectFrom('browser_sessions')
    .select(['pool_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where(
      'pool_id',
      'in',
      rows.map((r) => r.id),
    )
    .where('deleted_at', 'is', null)
    .groupBy('pool_id')
    .execute();
  let reserved = 0;
  for (const p of rows) reserved += Math.max(0, p.size - Number(live.find((l) => l.pool_id === p.id)?.n ?? 0));
  return reserved;
}

/** `extensionIds`: the pool's extension selectors resolved to ids, in load order. */
export function poolDto(row: PoolRow, counts: { idle: number; acquired: number }, extensionIds: string[] = []): BrowserPool {
  const dto: BrowserPool = {
    id: row.id,
    acquired_count: counts.acquired,
    available_count: counts.idle,
    browser_pool_config: configOf(row),
    created_at: row.created_at,
    extension_ids: extensionIds,
    region: configOf(row).region ?? DEFAULT_REGION,
  };
  if (row.name) dto.name = row.name;
  if (row.profile_id) dto.profile_id = row.profile_id;
  return dto;
}
