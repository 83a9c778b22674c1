/**
 * Browser sessions (soft-deleted; `deleted_at` + `ended_reason` once ended) with the
 * bookkeeping needed to recover after an unclean stop (node, process group, marker dir), and
 * engine-wide secrets shared by every node (the session JWT signing key).
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function sessionsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('browser_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('telemetry', 'text')
        .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
        .addColumn('profile_id', 'text')
        .addColumn('proxy_id', 'text')
        .addColumn('pool_id', 'text')
        .addColumn('pool_name', 'text')
        .addColumn('invocation_id', 'text')
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('pid', 'integer')
        .addColumn('pgid', 'integer')
        .addColumn('xvfb_pid', 'integer')
        .addColumn('marker', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .addColumn('ended_reason', 'text')
        .addColumn('uptime_ms', 'integer')
        .execute();
      await db.schema.createIndex('browser_sessions_scope').on('browser_sessions').columns(['org_id', 'project_id', 'deleted_at']).execute();
      await db.schema.createIndex('browser_sessions_node').on('browser_sessions').columns(['node_id', 'deleted_at']).execute();
      await db.schema.createIndex('browser_sessions_invocation').on('browser_sessions').columns(['invocation_id']).execute();

      await db.schema
        .createTable('engine_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('engine_secrets').execute();
      await db.schema.dropTable('browser_sessions').execute();
    },
  };
}
