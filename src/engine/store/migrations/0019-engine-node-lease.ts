/**
 * Each node's lease in the node registry: the key of the PostgreSQL advisory lock the node holds
 * on a dedicated connection for as long as it lives (domain/nodes/node-lease.ts). Other nodes
 * judge a node by that lock only when its row names one: a node of an older version (no lease,
 * NULL here) stays judged by its heartbeat alone, so a rolling upgrade never declares it lost.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function engineNodeLeaseMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('engine_nodes').addColumn('lease_key', 'integer').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('engine_nodes').dropColumn('lease_key').execute();
    },
  };
}
