/**
 * First start: an organization, its default project and an admin API key. The key is printed
 * once and written to `<data-dir>/admin-api-key` (0600). With BROWSERDECK_ADMIN_API_KEY set at
 * first start, that value becomes the admin key. Later starts change nothing.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { newId } from '../ids.js';
import { nameKey } from '../../../shared/name-key.js';
import type { ApiKeyAuthority } from './api-keys.js';

export interface BootstrapResult {
  orgId: string;
  /** Set only on the start that created the organization. */
  adminKey?: string;
}

export async function bootstrapOrg(opts: {
  db: Kysely<Database>;
  clock: Clock;
  dataDir: string;
  apiKeys: ApiKeyAuthority;
  adminKey?: string;
  log: (msg: string) => void;
}): Promise<BootstrapResult> {
  const existing = await opts.db.selectFrom('orgs').select('id').orderBy('created_at').executeTakeFirst();
  if (existing) return { orgId: existing.id };
  const now = opts.clock.now().toISOString();
  const orgId = newId();
  await opts.db
    .insertInto('orgs')
    .values({ id: orgId, name: 'default', admin_email: 'admin@browserdeck.local', default_project_max_concurrent_sessions: null, created_at: now })
    .execute();
  await opts.db
    .insertInto('projects')
    .values({
      id: newId(),
      org_id: orgId,
      name: 'default',
      name_key: nameKey('default'),
      status: 'active',
      max_concurrent_sessions: null,
      max_concurrent_invocations: null,
      max_pooled_sessions: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    })
    .execute();
  const { key } = await opts.apiKeys.issue({ orgId, name: 'admin', projectId: null, createdById: null, expiresAt: null, plaintext: opts.adminKey });
  const file = path.join(opts.dataDir, 'admin-api-key');
  await fs.writeFile(file, key + '\n', { mode: 0o600 });
  await fs.chmod(file, 0o600);
  if (!opts.adminKey) opts.log(`Created the admin API key (shown once; also in ${file}):\n  ${key}`);
  else opts.log(`Created the admin API key from BROWSERDECK_ADMIN_API_KEY (also in ${file})`);
  return { orgId, adminKey: key };
}
