/**
 * Web console sign-ins (api/console-session.ts), kept so an engine restart or another node
 * behind the same address does not sign the console out. Only a SHA-256 of each token is
 * stored; the key behind it is re-checked on every use.
 */
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';

export function consoleSessionsMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('console_sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('console_sessions').execute();
    },
  };
}
