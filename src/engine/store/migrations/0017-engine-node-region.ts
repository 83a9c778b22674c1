/**
 * Each node's region (`--region`) in the node registry, so a create asking for a region another
 * node serves can be placed there (domain/nodes/node-registry.ts `liveNodeIn`). Rows written
 * before this column existed are of the default region, as their sessions are.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function engineNodeRegionMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('engine_nodes')
        .addColumn('region', 'text', (c) => c.notNull().defaultTo('us-east'))
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('engine_nodes').dropColumn('region').execute();
    },
  };
}
