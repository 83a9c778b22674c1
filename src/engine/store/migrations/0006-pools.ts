/**
 * Browser pools: one row per pool (its PoolConfig as JSON) and, on session rows, the pool
 * state of a pooled browser: null while it starts, 'idle' while it waits in the pool (hidden
 * from GET /browsers), 'acquired' once handed out (a normal session from then on).
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function poolsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('browser_pools')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('profile_id', 'text')
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('browser_pools_project_name').on('browser_pools').columns(['project_id', 'name']).unique().execute();
      await db.schema.createIndex('browser_pools_org').on('browser_pools').columns(['org_id', 'project_id']).execute();
      await db.schema.alterTable('browser_sessions').addColumn('pool_state', 'text').execute();
      await db.schema.createIndex('browser_sessions_pool').on('browser_sessions').columns(['pool_id', 'deleted_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('browser_sessions_pool').execute();
      await db.schema.alterTable('browser_sessions').dropColumn('pool_state').execute();
      await db.schema.dropTable('browser_pools').execute();
    },
  };
}
