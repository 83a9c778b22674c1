/**
 * The node registry: one row per engine node sharing this database, with the address other
 * nodes use to reach it (`internal_url`) and a heartbeat. A node whose heartbeat is stale is
 * dead; `stopped_at` marks a node that is stopping cleanly (it ends its own sessions).
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function engineNodesMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('engine_nodes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('internal_url', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('heartbeat_at', 'text', (c) => c.notNull())
        .addColumn('stopped_at', 'text')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('engine_nodes').execute();
    },
  };
}
