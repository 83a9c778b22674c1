/**
 * Apps: deployments (soft-deleted, their unpacked code under `<dataDir>/deployments/<id>/`),
 * the app versions a deployment registered, invocations of their actions, and the persisted
 * event history (log lines and state changes) of deployments and invocations, so `?since=`
 * replays survive restarts. Event rows are bounded per owner by the writer.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function appsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('deployments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_reason', 'text')
        .addColumn('entrypoint_rel_path', 'text', (c) => c.notNull())
        .addColumn('env_vars', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('force', 'integer', (c) => c.notNull())
        .addColumn('source_type', 'text', (c) => c.notNull())
        .addColumn('source_checksum', 'text')
        .addColumn('local_path', 'text')
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema.createIndex('deployments_scope').on('deployments').columns(['org_id', 'project_id', 'deleted_at']).execute();

      await db.schema
        .createTable('app_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('app_name', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('deployment_id', 'text', (c) => c.notNull())
        .addColumn('actions', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('app_versions_name').on('app_versions').columns(['project_id', 'app_name', 'version']).unique().execute();
      await db.schema.createIndex('app_versions_deployment').on('app_versions').columns(['deployment_id']).execute();

      await db.schema
        .createTable('invocations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('app_name', 'text', (c) => c.notNull())
        .addColumn('action_name', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('deployment_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_reason', 'text')
        .addColumn('payload', 'text')
        .addColumn('output', 'text')
        .addColumn('is_async', 'integer', (c) => c.notNull())
        .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('invocations_scope').on('invocations').columns(['org_id', 'project_id', 'started_at']).execute();
      await db.schema.createIndex('invocations_status').on('invocations').columns(['project_id', 'status']).execute();
      await db.schema.createIndex('invocations_key').on('invocations').columns(['key_hash']).execute();

      await db.schema
        .createTable('app_events')
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('app_events_pk', ['owner_id', 'seq'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['app_events', 'invocations', 'app_versions', 'deployments']) await db.schema.dropTable(t).execute();
    },
  };
}
