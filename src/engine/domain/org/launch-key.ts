/**
 * Per-launch admin key for an embedded engine (the desktop app): an org-wide key that exists
 * only while this engine runs. It is issued at start, deleted at stop, and any key of an
 * earlier launch that was never deleted (the process crashed) is deleted at the next start,
 * so a launch key never outlives the process that holds it in memory for long.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { ApiKeyAuthority } from './api-keys.js';

/** The name every launch key carries; also how leftovers of crashed launches are found. */
export const LAUNCH_KEY_NAME = 'desktop launch key (deleted when the app quits)';

export interface LaunchKey {
  id: string;
  key: string;
  /** Deletes the key and drops it from the authentication cache. Idempotent. */
  revoke(): Promise<void>;
}

export async function issueLaunchKey(opts: { db: Kysely<Database>; clock: Clock; apiKeys: ApiKeyAuthority; orgId: string }): Promise<LaunchKey> {
  const { db, clock, apiKeys, orgId } = opts;
  const now = () => clock.now().toISOString();
  const stale = await db
    .selectFrom('api_keys')
    .select(['id', 'key_hash'])
    .where('org_id', '=', orgId)
    .where('name', '=', LAUNCH_KEY_NAME)
    .where('deleted_at', 'is', null)
    .execute();
  for (const s of stale) {
    await db.updateTable('api_keys').set({ deleted_at: now() }).where('id', '=', s.id).execute();
    apiKeys.evict(s.key_hash);
  }
  const { row, key } = await apiKeys.issue({ orgId, name: LAUNCH_KEY_NAME, projectId: null, createdById: null, expiresAt: null });
  let revoked = false;
  return {
    id: row.id,
    key,
    async revoke() {
      if (revoked) return;
      revoked = true;
      await db.updateTable('api_keys').set({ deleted_at: now() }).where('id', '=', row.id).where('deleted_at', 'is', null).execute();
      apiKeys.evict(row.key_hash);
    },
  };
}
