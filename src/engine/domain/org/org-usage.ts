/**
 * The usage half of `GET /org/limits` (Kernel SDK ≥ 0.89 types these fields as required):
 * browsers counted against the org's cap right now, and managed-auth connections. Vaults are
 * not offered by this engine, so their cap and count are 0 (entitlements say so too).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { OrgCaps, OrgLimits } from '../../../shared/wire/org.js';

export interface OrgUsageSources {
  db: Kysely<Database>;
  /** Browsers counted against the org cap (session rows + pool reservations); null when unknown. */
  sessionsInUse: (orgId: string) => Promise<number | null>;
  /** The smallest `health_check_interval` auth connections accept. */
  minHealthCheckIntervalSeconds: number;
}

export async function withUsage(caps: OrgCaps, orgId: string, src: OrgUsageSources): Promise<OrgLimits> {
  const used = await src.sessionsInUse(orgId);
  const conns = await src.db
    .selectFrom('auth_connections')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return {
    ...caps,
    concurrent_sessions_used: used,
    concurrent_sessions_available: used === null ? null : Math.max(0, caps.max_concurrent_sessions - used),
    auth_connections_used: Number(conns.n),
    max_auth_connections: null,
    min_health_check_interval_seconds: src.minHealthCheckIntervalSeconds,
    vaults_used: 0,
    max_vaults: 0,
  };
}
