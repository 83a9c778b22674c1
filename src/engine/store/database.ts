/**
 * Opens the engine's database: SQLite (better-sqlite3, WAL) inside the data dir by default,
 * PostgreSQL when a `postgres://` URL is given. Both speak through one Kysely instance, and
 * migrations run before anything else touches it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations/index.js';
import { ImmediateSqliteDialect } from './sqlite-immediate-dialect.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The SQLite database file (absent for PostgreSQL), for work that opens its own connection. */
  sqliteFile?: string;
  close(): Promise<void>;
}

// int8 (COUNT(*), bigserial) arrives as a string from pg; every such value here fits a double.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export async function openStore(opts: { dataDir: string; databaseUrl?: string }): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: DialectName;
  let sqliteFile: string | undefined;
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    dialect = 'postgres';
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const file = opts.databaseUrl?.replace(/^sqlite:(\/\/)?/, '') || path.join(opts.dataDir, 'browserdeck.sqlite');
    sqliteFile = file;
    // The database is the engine's alone (owner-only, like the secret key): the data dir is
    // searchable by others when jails run as unprivileged users. SQLite gives its -wal/-shm the
    // main file's mode.
    if (file !== ':memory:') {
      fs.closeSync(fs.openSync(file, 'a', 0o600));
      fs.chmodSync(file, fs.statSync(file).mode & 0o700);
    }
    const sqlite = new SQLite(file);
    cacheStatements(sqlite);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
  }
  const migrator = new Migrator({ db, provider: migrationProvider(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    await db.destroy();
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`);
  }
  return { db, dialect, sqliteFile, close: () => db.destroy() };
}

/**
 * better-sqlite3 has no statement cache and Kysely prepares every query it runs; for the small
 * queries of the hot path (key lookup, project list, audit batch) preparing costs about as
 * much as running. Statements are reused by SQL text (LRU). One still busy in an open
 * `iterate()` (a streaming query) is not shared: a fresh statement is prepared instead.
 */
function cacheStatements(db: SQLite.Database, max = 256): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, SQLite.Statement>();
  db.prepare = ((source: string) => {
    const hit = cache.get(source);
    if (hit && !hit.busy) {
      cache.delete(source);
      cache.set(source, hit);
      return hit;
    }
    const stmt = prepare(source);
    if (!hit) {
      cache.set(source, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
    }
    return stmt;
  }) as typeof db.prepare;
}
