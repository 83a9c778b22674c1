/**
 * OTLP telemetry destinations (Kernel spec §12): org-scoped, the name unique per org regardless
 * of case (`name_key`). Headers (ingestion keys) are one ciphertext of their JSON map from
 * domain/secrets/secret-cipher.ts, bound to the destination id. The delivery health columns are
 * written by the exporters of the sessions bound to it.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function telemetryDestinationsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('telemetry_destinations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('headers_enc', 'text', (c) => c.notNull())
        .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('last_error_at', 'text')
        .addColumn('last_success_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('telemetry_destinations_org_name').on('telemetry_destinations').columns(['org_id', 'name_key']).unique().execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('telemetry_destinations').execute();
    },
  };
}
