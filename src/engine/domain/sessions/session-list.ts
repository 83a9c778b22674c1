/**
 * `GET /browsers` as a query: status (active|deleted|all, deprecated include_deleted),
 * free-text `query` over name, session id, profile id and name (0.86.1), proxy id and pool name,
 * `region` (0.89), and `tags[k]=v` filters ANDed, newest first with offset pagination (fetches
 * limit + 1 rows).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { DialectName } from '../../store/database.js';
import { containsInsensitive } from '../../store/sql-helpers.js';
import type { SessionRow } from './session-record.js';
import { regionIs } from './session-region.js';

export interface ListQuery {
  orgId: string;
  projectId: string;
  status: 'active' | 'deleted' | 'all';
  query?: string;
  region?: string;
  tags: Record<string, string>;
  invocationId?: string;
  offset: number;
  limit: number;
}

function tagEquals(dialect: DialectName, key: string, value: string) {
  const path = '$.' + JSON.stringify(key);
  return dialect === 'postgres' ? sql<boolean>`(tags::jsonb ->> ${key}) = ${value}` : sql<boolean>`json_extract(tags, ${path}) = ${value}`;
}

export async function listSessions(db: Kysely<Database>, dialect: DialectName, q: ListQuery): Promise<SessionRow[]> {
  let sel = db.selectFrom('browser_sessions').selectAll().where('org_id', '=', q.orgId).where('project_id', '=', q.projectId);
  // Pooled browsers become visible sessions only once acquired (pools, 0006-pools).
  sel = sel.where((eb) => eb.or([eb('pool_id', 'is', null), eb('pool_state', '=', 'acquired')]));
  if (q.status === 'active') sel = sel.where('deleted_at', 'is', null);
  else if (q.status === 'deleted') sel = sel.where('deleted_at', 'is not', null);
  if (q.invocationId) sel = sel.where('invocation_id', '=', q.invocationId);
  const text = q.query?.trim();
  if (text) {
    sel = sel.where((eb) =>
      eb.or([
        containsInsensitive('name', text),
        eb('id', '=', text),
        eb('profile_id', '=', text),
        eb(
          'profile_id',
          'in',
          eb.selectFrom('profiles').select('profiles.id').where('profiles.project_id', '=', q.projectId).where(containsInsensitive('profiles.name', text)),
        ),
        eb('proxy_id', '=', text),
        containsInsensitive('pool_name', text),
      ]),
    );
  }
  if (q.region) sel = sel.where(regionIs(dialect, 'options', q.region));
  for (const [k, v] of Object.entries(q.tags)) sel = sel.where(tagEquals(dialect, k, v));
  return sel
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(q.offset)
    .limit(q.limit + 1)
    .execute();
}
