/** Organizations, projects (with limit overrides), API keys and the audit log. */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function orgMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('orgs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('admin_email', 'text', (c) => c.notNull())
        .addColumn('default_project_max_concurrent_sessions', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('max_concurrent_sessions', 'integer')
        .addColumn('max_concurrent_invocations', 'integer')
        .addColumn('max_pooled_sessions', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('projects_org_name').on('projects').columns(['org_id', 'name_key']).execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
        .addColumn('project_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('masked_key', 'text', (c) => c.notNull())
        .addColumn('created_by_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_org').on('api_keys').columns(['org_id', 'created_at']).execute();

      const idType = dialect === 'postgres' ? 'bigserial' : 'integer';
      await db.schema
        .createTable('audit_logs')
        .addColumn('id', idType as 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'text', (c) => c.notNull())
        .addColumn('auth_strategy', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_logs_org_time').on('audit_logs').columns(['org_id', 'timestamp', 'id']).execute();
      void sql;
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['audit_logs', 'api_keys', 'projects', 'orgs']) await db.schema.dropTable(t).execute();
    },
  };
}
