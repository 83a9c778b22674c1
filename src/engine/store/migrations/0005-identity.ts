/**
 * Identity and network: encrypted credentials, proxies (soft-deleted; custom passwords
 * encrypted), auth connections (managed login per profile+domain) and their timeline.
 * Secrets are stored only as ciphertext from domain/secrets/secret-cipher.ts.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function identityMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('credentials')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('values_enc', 'text', (c) => c.notNull())
        .addColumn('value_keys', 'text', (c) => c.notNull())
        .addColumn('totp_secret_enc', 'text')
        .addColumn('sso_provider', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credentials_project_name').on('credentials').columns(['project_id', 'name']).unique().execute();
      await db.schema.createIndex('credentials_project_domain').on('credentials').columns(['project_id', 'domain']).execute();

      await db.schema
        .createTable('proxies')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('host', 'text')
        .addColumn('password_enc', 'text')
        .addColumn('bypass_hosts', 'text', (c) => c.notNull())
        .addColumn('status', 'text')
        .addColumn('ip_address', 'text')
        .addColumn('last_checked', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('proxies_project_created').on('proxies').columns(['project_id', 'created_at']).execute();

      await db.schema
        .createTable('auth_connections')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('profile_name', 'text', (c) => c.notNull())
        .addColumn('profile_id', 'text')
        .addColumn('login_url', 'text')
        .addColumn('allowed_domains', 'text', (c) => c.notNull())
        .addColumn('credential', 'text')
        .addColumn('health_checks', 'integer', (c) => c.notNull())
        .addColumn('health_check_interval', 'integer', (c) => c.notNull())
        .addColumn('auto_reauth', 'integer', (c) => c.notNull())
        .addColumn('save_credentials', 'integer', (c) => c.notNull())
        .addColumn('record_session', 'integer', (c) => c.notNull())
        .addColumn('proxy_id', 'text')
        .addColumn('browser_telemetry', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('requirements', 'text')
        .addColumn('post_login_url', 'text')
        .addColumn('sso_provider', 'text')
        .addColumn('flow', 'text')
        .addColumn('last_auth_check_at', 'text')
        .addColumn('last_login_at', 'text')
        .addColumn('next_check_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('auth_connections_profile_domain')
        .on('auth_connections')
        .columns(['project_id', 'profile_name', 'domain'])
        .unique()
        .execute();

      await db.schema
        .createTable('auth_timeline')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('connection_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('step', 'text')
        .addColumn('previous_status', 'text')
        .addColumn('browser_session_id', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('website_error', 'text')
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('auth_timeline_connection').on('auth_timeline').columns(['connection_id', 'seq']).execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['auth_timeline', 'auth_connections', 'proxies', 'credentials']) await db.schema.dropTable(t).execute();
    },
  };
}
