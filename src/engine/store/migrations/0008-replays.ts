/**
 * Replay recordings: one row per recording of a session, kept after the session ends until
 * `expires_at` (the retention sweeper deletes row and file together). `status` is
 * recording | finishing | ready | failed; `file` is relative to `<dataDir>/replays/`.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function replaysMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('replays')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('framerate', 'integer', (c) => c.notNull())
        .addColumn('file', 'text', (c) => c.notNull())
        .addColumn('size_bytes', 'integer')
        .addColumn('error', 'text')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('expires_at', 'text')
        .execute();
      await db.schema.createIndex('replays_session').on('replays').columns(['session_id', 'started_at']).execute();
      await db.schema.createIndex('replays_expires').on('replays').columns(['expires_at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('replays').execute();
    },
  };
}
