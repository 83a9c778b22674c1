/**
 * Issue 28: who or what ended a session beside why (`browser_sessions.ended_by`: the key or user
 * that deleted it, the invocation that ended it, the node that was lost), and why a proxy check
 * found a proxy unavailable (`proxies.status_reason`). Rows from before stay null: the API then
 * omits the field.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function endedByStatusReasonMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('browser_sessions').addColumn('ended_by', 'text').execute();
      await db.schema.alterTable('proxies').addColumn('status_reason', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('proxies').dropColumn('status_reason').execute();
      await db.schema.alterTable('browser_sessions').dropColumn('ended_by').execute();
    },
  };
}
