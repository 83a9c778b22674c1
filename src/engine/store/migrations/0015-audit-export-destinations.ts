/**
 * Audit-log export destinations (issue 15 §13): an organization's S3 bucket that the engine
 * delivers its audit log to, window by window. `cursor_at` is the event time everything before
 * which is delivered (advanced only after a window's objects are written); `gap_from`/`gap_to`
 * the span of the latest pause, whose rows are never exported; `lease_node` /
 * `lease_until` say which node is exporting it now (one node per destination on a cluster);
 * `version` counts configuration changes (a PATCH on stale state is a 409). Static credentials
 * are one ciphertext (domain/secrets/secret-cipher.ts). Deleting sets `deleted_at`.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function auditExportDestinationsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_export_destinations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('region', 'text', (c) => c.notNull())
        .addColumn('role_arn', 'text', (c) => c.notNull())
        .addColumn('kms_key_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text', (c) => c.notNull())
        .addColumn('credentials_enc', 'text')
        .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('last_error_at', 'text')
        .addColumn('last_success_at', 'text')
        .addColumn('next_attempt_at', 'text')
        .addColumn('cursor_at', 'text')
        .addColumn('gap_from', 'text')
        .addColumn('gap_to', 'text')
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('lease_node', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('deleted_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_export_destinations_org').on('audit_export_destinations').columns(['org_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('audit_export_destinations').execute();
    },
  };
}
