/**
 * Credential providers: external password managers (1Password) an organization connects for
 * automatic login. Org-scoped (not per project); the service account token is stored only as
 * ciphertext from domain/secrets/secret-cipher.ts, bound to the provider id.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function credentialProvidersMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('credential_providers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('provider_type', 'text', (c) => c.notNull())
        .addColumn('token_enc', 'text', (c) => c.notNull())
        .addColumn('cache_ttl_seconds', 'integer', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('priority', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credential_providers_org_name').on('credential_providers').columns(['org_id', 'name']).unique().execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('credential_providers').execute();
    },
  };
}
