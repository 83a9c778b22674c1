/**
 * Saved browser profiles: one row per profile (metadata only). The saved browser state itself
 * lives on disk under `<dataDir>/profiles/<id>/` (see domain/profiles/profile-store.ts).
 * Names are unique per project among profiles that have one.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function profilesMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('profiles')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createIndex('profiles_project_name').on('profiles').columns(['project_id', 'name']).unique().execute();
      await db.schema.createIndex('profiles_project_created').on('profiles').columns(['project_id', 'created_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('profiles').execute();
    },
  };
}
