/**
 * Whether a resource a route addresses by id (or name) is within a caller's reach: in its
 * organization, and in its project when the credential is scoped to one. The HTTP layer's
 * permission-before-validation hook (`http/resource-lookup-first.ts`) asks this before a
 * request's body is parsed, so a resource out of reach answers 404 whatever the body says.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { nameKey } from '../../../shared/name-key.js';
import type { ReachTable } from '../../../shared/wire/routes/route-spec.js';

export interface ReachTarget {
  table: ReachTable;
  /** Whether the route accepts a name where the id goes. */
  byName: boolean;
  what: string;
}

/** How each table a route can address (its `reach` fact, shared/wire/routes) is looked up. */
export const REACH_TARGETS: Record<ReachTable, ReachTarget> = {
  browser_sessions: { table: 'browser_sessions', byName: true, what: 'browser session' },
  profiles: { table: 'profiles', byName: true, what: 'profile' },
  browser_pools: { table: 'browser_pools', byName: true, what: 'browser pool' },
  credentials: { table: 'credentials', byName: true, what: 'credential' },
  proxies: { table: 'proxies', byName: false, what: 'proxy' },
  auth_connections: { table: 'auth_connections', byName: false, what: 'auth connection' },
  api_keys: { table: 'api_keys', byName: false, what: 'API key' },
  projects: { table: 'projects', byName: true, what: 'project' },
  extensions: { table: 'extensions', byName: true, what: 'extension' },
  deployments: { table: 'deployments', byName: false, what: 'deployment' },
  invocations: { table: 'invocations', byName: false, what: 'invocation' },
  credential_providers: { table: 'credential_providers', byName: true, what: 'credential provider' },
  audit_export_destinations: { table: 'audit_export_destinations', byName: false, what: 'audit log export destination' },
  telemetry_destinations: { table: 'telemetry_destinations', byName: true, what: 'telemetry destination' },
};

export async function inReach(db: Kysely<Database>, t: ReachTarget, key: string, orgId: string, project: string | null): Promise<boolean> {
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
    const row = await db
      .selectFrom('credential_providers')
      .select('id')
      .where('org_id', '=', orgId)
      .where((w) => w.or([w('id', '=', key), w('name', '=', key)]))
      .executeTakeFirst();
    return row !== undefined;
  }
  if (t.table === 'audit_export_destinations') {
    // Org-level (a project key reads them too); a deleted one is gone.
    const row = await db
      .selectFrom('audit_export_destinations')
      .select('id')
      .where('org_id', '=', orgId)
      .where('id', '=', key)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }
  if (t.table === 'telemetry_destinations') {
    // Org-level (a project key reads them too); a name in any case (telemetry-destinations.ts `find`).
    const row = await db
      .selectFrom('telemetry_destinations')
      .select('id')
      .where('org_id', '=', orgId)
      .where((w) => w.or([w('id', '=', key), w('name_key', '=', key.toLowerCase())]))
      .executeTakeFirst();
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

/** The database handle the check reads (the engine's own). */
export type ReachDb = Kysely<Database>;
