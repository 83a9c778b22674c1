/**
 * API key names get a case/accent-folded `name_key` (exact-name filter) and a `lifetime_days`
 * (rotation reuses the rotated key's lifetime even after its own expiry was shortened).
 * Live project names become unique per org at the database level, so two concurrent creates
 * cannot both win the application-level check.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { nameKey } from '../../../shared/name-key.js';

export function orgKeysMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('api_keys')
        .addColumn('name_key', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.alterTable('api_keys').addColumn('lifetime_days', 'integer').execute();
      // Backfill in JS: SQL lower() does not fold accents (and in SQLite not even non-ASCII case).
      // The table as this migration leaves it (a migration cannot use the current schema's types).
      const keys = db.withTables<{ api_keys: { id: string; name: string; name_key: string } }>();
      const rows = await keys.selectFrom('api_keys').select(['id', 'name']).execute();
      for (const r of rows) {
        await keys
          .updateTable('api_keys')
          .set({ name_key: nameKey(r.name) })
          .where('id', '=', r.id)
          .execute();
      }
      await db.schema
        .createIndex('projects_org_live_name')
        .on('projects')
        .columns(['org_id', 'name_key'])
        .unique()
        .where(sql.ref('deleted_at'), 'is', null)
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('projects_org_live_name').execute();
      await db.schema.alterTable('api_keys').dropColumn('lifetime_days').execute();
      await db.schema.alterTable('api_keys').dropColumn('name_key').execute();
    },
  };
}
