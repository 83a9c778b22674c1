/**
 * Reads the audit log of one organization, newest first, keyset-paginated on (timestamp, id):
 * the same query serves search pages and export chunks. Timestamps are ISO text in both
 * dialects, so range and keyset comparisons are plain string comparisons.
 */
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database, AuditLogTable } from '../../store/schema.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { AuditFilter } from './audit-filter.js';
import type { AuditPosition } from './audit-cursor.js';
import type { AuditLogEntry } from '../../../shared/wire/audit.js';

export type AuditRow = Omit<AuditLogTable, 'id'> & { id: number };

/** Returns up to `limit + 1` rows after `after` so that the extra row tells whether more exist. */
export async function findAuditRows(db: Kysely<Database>, f: AuditFilter, after: AuditPosition | undefined, limit: number): Promise<AuditRow[]> {
  let q = db.selectFrom('audit_logs').selectAll().where('org_id', '=', f.orgId).where('timestamp', '>=', f.start).where('timestamp', '<', f.end);
  if (f.authStrategy) q = q.where('auth_strategy', '=', f.authStrategy);
  if (f.service) q = q.where('service', '=', f.service);
  if (f.method) q = q.where('method', '=', f.method);
  if (f.excludeMethods.length) q = q.where('method', 'not in', f.excludeMethods);
  if (f.search || f.searchUserIds.length) q = q.where((eb) => searchOf(eb, f));
  if (after) {
    q = q.where((eb) => eb.or([eb('timestamp', '<', after.timestamp), eb.and([eb('timestamp', '=', after.timestamp), eb('id', '<', after.id)])]));
  }
  const rows = await q
    .orderBy('timestamp', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return rows as AuditRow[];
}

function searchOf(eb: ExpressionBuilder<Database, 'audit_logs'>, f: AuditFilter) {
  const any = [];
  if (f.search) {
    for (const col of ['path', 'user_id', 'email', 'client_ip'] as const) any.push(containsInsensitive(col, f.search));
    if (/^\d{1,3}$/.test(f.search)) any.push(eb('status', '=', Number(f.search)));
  }
  if (f.searchUserIds.length) any.push(eb('user_id', 'in', f.searchUserIds));
  return eb.or(any);
}

/** The wire entry (shared/wire/audit.ts) of a stored row. */
export function entryOf(r: AuditRow): AuditLogEntry {
  return {
    timestamp: r.timestamp,
    auth_strategy: r.auth_strategy,
    user_id: r.user_id,
    email: r.email,
    method: r.method,
    path: r.path,
    route: r.route,
    domain: r.domain,
    client_ip: r.client_ip,
    user_agent: r.user_agent,
    status: r.status,
    duration_ms: r.duration_ms,
  };
}

export function positionOf(r: AuditRow): AuditPosition {
  return { timestamp: r.timestamp, id: Number(r.id) };
}
