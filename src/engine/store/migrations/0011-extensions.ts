/**
 * Uploaded browser extensions: one row per extension (metadata only). The uploaded zip itself
 * lives on disk under `<dataDir>/extensions/<id>.zip` (see domain/extensions/extension-store.ts).
 * Names are unique per project among extensions that have one.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function extensionsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('extensions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('size_bytes', 'integer', (c) => c.notNull())
        .addColumn('checksum', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createIndex('extensions_project_name').on('extensions').columns(['project_id', 'name']).unique().execute();
      await db.schema.createIndex('extensions_project_created').on('extensions').columns(['project_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('extensions').execute();
    },
  };
}
