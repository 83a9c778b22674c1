/**
 * Auth connection timeline entries name the replay recorded during a flow (`record_session`)
 * and whether browser telemetry was captured for the flow's session (`browser_telemetry`).
 * Two nullable columns; SQLite adds one column per ALTER TABLE.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function authTimelineReplayMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('auth_timeline').addColumn('replay_id', 'text').execute();
      await db.schema.alterTable('auth_timeline').addColumn('telemetry_captured', 'integer').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('auth_timeline').dropColumn('telemetry_captured').execute();
      await db.schema.alterTable('auth_timeline').dropColumn('replay_id').execute();
    },
  };
}
