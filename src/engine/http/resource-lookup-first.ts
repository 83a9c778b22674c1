/**
 * Permission before validation for every route addressing one resource (`/browsers/{id}/…`,
 * `/profiles/{id_or_name}`, `/org/api_keys/{id}`, …): after authentication and the route's own
 * permission hooks, before the body is parsed or anything is validated, the route's first id is looked up in the caller's reach —
 * its organization, and its project when the key is scoped to one. A resource out of reach, or
 * none at all, answers 404 whatever the request carries; otherwise a malformed body or query
 * would answer 400 first, describing the route's fields and confirming the id to a caller
 * without the right. Only denies: a resource in reach goes on to the route's own checks.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { stringField } from '../../shared/string-field.js';
import { ApiError } from './api-error.js';
import { nameKey } from '../../shared/name-key.js';

type Scoped = 'browser_sessions' | 'profiles' | 'browser_pools' | 'credentials' | 'proxies' | 'auth_connections' | 'api_keys' | 'extensions' | 'deployments' | 'invocations';
interface Target {
  table: Scoped | 'projects' | 'credential_providers';
  /** Whether the route accepts a name where the id goes. */
  byName: boolean;
  what: string;
}

const TARGETS: Array<[RegExp, Target]> = [
  [/^\/browsers\/:/, { table: 'browser_sessions', byName: true, what: 'browser session' }],
  [/^\/profiles\/:/, { table: 'profiles', byName: true, what: 'profile' }],
  [/^\/browser_pools\/:/, { table: 'browser_pools', byName: true, what: 'browser pool' }],
  [/^\/credentials\/:/, { table: 'credentials', byName: true, what: 'credential' }],
  [/^\/proxies\/:/, { table: 'proxies', byName: false, what: 'proxy' }],
  [/^\/auth\/connections\/:/, { table: 'auth_connections', byName: false, what: 'auth connection' }],
  [/^\/org\/api_keys\/:/, { table: 'api_keys', byName: false, what: 'API key' }],
  [/^\/(org\/)?projects\/:/, { table: 'projects', byName: true, what: 'project' }],
  [/^\/extensions\/:/, { table: 'extensions', byName: true, what: 'extension' }],
  [/^\/deployments\/:/, { table: 'deployments', byName: false, what: 'deployment' }],
  [/^\/invocations\/:/, { table: 'invocations', byName: false, what: 'invocation' }],
  [/^\/org\/credential_providers\/:/, { table: 'credential_providers', byName: true, what: 'credential provider' }],
];

async function inReach(db: Kysely<Database>, t: Target, key: string, orgId: string, project: string | null): Promise<boolean> {
  if (t.table === 'projects') {
    const row = await db
      .selectFrom('projects')
      .select('id')
      .where('org_id', '=', orgId)
      .where((w) => w.or([w('id', '=', key), w('name_key', '=', nameKey(key))]))
      .$if(project !== null, (q) => q.where('id', '=', project!))
      .executeTakeFirst();
    return row !== undefined;
  }
  if (t.table === 'credential_providers') {
    const row = await db.selectFrom('credential_providers').select('id').where('org_id', '=', orgId).where((w) => w.or([w('id', '=', key), w('name', '=', key)])).executeTakeFirst();
    return row !== undefined;
  }
  // Every project-owned table has id, org_id and project_id; the name column where byName.
  const table = t.table as 'profiles';
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('org_id', '=', orgId)
    .where((w) => (t.byName ? w.or([w('id', '=', key), w('name', '=', key)]) : w('id', '=', key)))
    .$if(project !== null, (q) => q.where('project_id', '=', project!))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Adds the lookup to each such route as its last `onRequest` hook: after authentication and
 * after the route's own permission hooks (an org-wide-only route still answers 403 first), before
 * parsing and validation. Call before the routes are registered.
 */
export function installResourceLookupFirst(app: FastifyInstance, db: Kysely<Database>): void {
  app.addHook('onRoute', (route) => {
    const hit = TARGETS.find(([re]) => re.test(route.url));
    const param = /^\/[^:]*:(\w+)/.exec(route.url)?.[1];
    if (!hit || !param) return;
    const check = async (req: FastifyRequest): Promise<void> => {
      // Public routes, and routes that authenticate themselves (no req.auth yet), decide alone.
      if (!req.auth) return;
      const key = stringField(req.params, param);
      if (key === undefined) return;
      if (!(await inReach(db, hit[1], key, req.auth.orgId, req.auth.credentialProjectId))) throw new ApiError(404, 'not_found', `${hit[1].what} '${key}' not found`);
    };
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, check] as typeof route.onRequest;
  });
}
