/**
 * Reading API keys as their wire records: one query joins the creator key, the org (whose
 * admin email is every key's creator email) and the project, so list and get return the
 * same shape. Listing filters by status, exact name (case/accent-insensitive), a free-text
 * query and sorts on a few columns with an id tie-break, identically in SQLite and PostgreSQL.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { ApiKey } from '../../../shared/wire/org.js';
import { contains, containsInsensitive, startsWith } from '../../store/sql-helpers.js';
import type { ApiKeyRow } from './api-keys.js';
import { nameKey } from '../../../shared/name-key.js';

export type ApiKeyStatus = 'active' | 'deleted' | 'all';
export type ApiKeySortBy = 'created_at' | 'name' | 'expires_at';

export interface ApiKeyListQuery {
  offset: number;
  limit: number;
  status: ApiKeyStatus;
  name?: string;
  query?: string;
  sortBy: ApiKeySortBy;
  sortDirection: 'asc' | 'desc';
  /** Only keys of this project (for project-scoped callers). */
  projectId?: string;
}

export type ApiKeyRecordRow = ApiKeyRow & { creator_email: string; creator_name: string | null; project_name: string | null };

export function apiKeyDto(r: ApiKeyRecordRow): ApiKey {
  return {
    id: r.id,
    created_at: r.created_at,
    created_by: { id: r.created_by_id, email: r.creator_email, name: r.creator_name },
    deleted_at: r.deleted_at,
    expires_at: r.expires_at,
    masked_key: r.masked_key,
    name: r.name,
    project_id: r.project_id,
    project_name: r.project_id ? r.project_name : null,
  };
}

function recordQuery(db: Kysely<Database>, orgId: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('orgs as o', 'o.id', 'k.org_id')
    .leftJoin('projects as p', 'p.id', 'k.project_id')
    .leftJoin('api_keys as c', 'c.id', 'k.created_by_id')
    .selectAll('k')
    .select(['o.admin_email as creator_email', 'c.name as creator_name', 'p.name as project_name'])
    .where('k.org_id', '=', orgId);
}

/** One key of an org as a record; deleted keys only when asked for. */
export async function findApiKeyRecord(
  db: Kysely<Database>,
  orgId: string,
  id: string,
  opts: { includeDeleted: boolean; projectId?: string },
): Promise<ApiKeyRecordRow | undefined> {
  let q = recordQuery(db, orgId).where('k.id', '=', id);
  if (!opts.includeDeleted) q = q.where('k.deleted_at', 'is', null);
  if (opts.projectId) q = q.where('k.project_id', '=', opts.projectId);
  return (await q.executeTakeFirst()) as ApiKeyRecordRow | undefined;
}

/** One page plus one extra row (for `sendPage`). */
export async function listApiKeyRecords(db: Kysely<Database>, orgId: string, q: ApiKeyListQuery): Promise<ApiKeyRecordRow[]> {
  let sel = recordQuery(db, orgId);
  if (q.status === 'active') sel = sel.where('k.deleted_at', 'is', null);
  if (q.status === 'deleted') sel = sel.where('k.deleted_at', 'is not', null);
  if (q.projectId) sel = sel.where('k.project_id', '=', q.projectId);
  if (q.name !== undefined) sel = sel.where('k.name_key', '=', nameKey(q.name));
  const text = q.query?.trim();
  if (text) {
    const folded = nameKey(text);
    sel = sel.where((eb) =>
      eb.or([
        contains('k.name_key', folded),
        contains('c.name_key', folded),
        containsInsensitive('o.admin_email', text),
        contains('p.name_key', folded),
        startsWith('k.id', text.toLowerCase()),
        startsWith('k.masked_key', text),
      ]),
    );
  }
  const dir = q.sortDirection;
  if (q.sortBy === 'name') sel = sel.orderBy('k.name_key', dir).orderBy('k.created_at', dir);
  // NULL (never expires) sorts as the latest expiry in both dialects.
  else if (q.sortBy === 'expires_at') sel = sel.orderBy(sql`case when k.expires_at is null then 1 else 0 end`, dir).orderBy('k.expires_at', dir);
  else sel = sel.orderBy('k.created_at', dir);
  sel = sel.orderBy('k.id', dir);
  return (await sel
    .offset(q.offset)
    .limit(q.limit + 1)
    .execute()) as ApiKeyRecordRow[];
}
