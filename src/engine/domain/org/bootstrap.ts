/**
 * First start: an organization, its default project and an admin API key. The key is printed
 * once and written to `<data-dir>/admin-api-key` (0600). With BROWSERDECK_ADMIN_API_KEY set at
 * first start, that value becomes the admin key. Later starts change nothing, and of several
 * nodes starting together on one empty database exactly one makes them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { DialectName } from '../../store/database.js';
import type { Clock } from '../../../shared/clock.js';
import { newId } from '../ids.js';
import { newProjectRow } from './projects.js';
import type { ApiKeyAuthority } from './api-keys.js';

export interface BootstrapResult {
  orgId: string;
  /** Set only on the start that created the organization. */
  adminKey?: string;
}

/** The advisory lock class of the first start's transaction ('BDBO'), apart from the node leases' ('BDNL'). */
export const BOOTSTRAP_LOCK_CLASS = 0x4244424f;

export async function bootstrapOrg(opts: {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  dataDir: string;
  apiKeys: ApiKeyAuthority;
  adminKey?: string;
  log: (msg: string) => void;
}): Promise<BootstrapResult> {
  // One transaction from "no organization yet" to the key: nodes of a cluster starting together on an
  // empty PostgreSQL database would otherwise each see none and each make one (two tenants that
  // cannot see each other's keys). On PostgreSQL the second waits on the advisory lock and then
  // reads the first one's organization; SQLite opens every transaction `BEGIN IMMEDIATE`, which
  // serializes them the same way.
  const made = await opts.db.transaction().execute(async (trx): Promise<BootstrapResult> => {
    if (opts.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_CLASS}::int4, 0)`.execute(trx);
    const existing = await trx.selectFrom('orgs').select('id').orderBy('created_at').executeTakeFirst();
    if (existing) return { orgId: existing.id };
    const now = opts.clock.now().toISOString();
    const orgId = newId();
    await trx
      .insertInto('orgs')
      .values({ id: orgId, name: 'default', admin_email: 'admin@browserdeck.local', default_project_max_concurrent_sessions: null, created_at: now })
      .execute();
    await trx
      .insertInto('projects')
      .values(newProjectRow(orgId, 'default', now))
      .execute();
    const { key } = await opts.apiKeys.issue({ orgId, name: 'admin', projectId: null, createdById: null, expiresAt: null, plaintext: opts.adminKey }, trx);
    return { orgId, adminKey: key };
  });
  if (!made.adminKey) return made;
  const key = made.adminKey;
  const file = path.join(opts.dataDir, 'admin-api-key');
  await fs.writeFile(file, key + '\n', { mode: 0o600 });
  await fs.chmod(file, 0o600);
  if (!opts.adminKey) opts.log(`Created the admin API key (shown once; also in ${file}):\n  ${key}`);
  else opts.log(`Created the admin API key from BROWSERDECK_ADMIN_API_KEY (also in ${file})`);
  return made;
}
