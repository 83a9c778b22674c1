/**
 * Online backup and restore of the SQLite store (`npm run serve -- backup|restore <file>`).
 *
 * Backup: `VACUUM INTO` from a connection of its own, which reads one WAL snapshot — consistent
 * while the engine keeps writing (writers are not blocked, and unlike the page-stepping backup
 * API it never restarts under a steady write load). The secret key travels inside the backup
 * file (table `browserdeck_backup`) when the engine keeps it as `<dataDir>/secret.key`, the
 * default: the backup is then as sensitive as the data dir, so it is created 0600. A key given
 * by `BROWSERDECK_SECRET_KEY` or kept outside the data dir (`BROWSERDECK_SECRET_KEY_FILE`) is
 * not copied: the operator keeps it with the backups.
 *
 * Restore: checks the file (`PRAGMA integrity_check`), refuses while an engine runs on the data
 * dir or when the data dir already has a database or key (unless `force`), then puts the
 * database and the carried key in place.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { runningEnginePid } from './engine-pid-file.js';

export const SQLITE_FILE = 'browserdeck.sqlite';
const KEY_FILE = 'secret.key';
const META_TABLE = 'browserdeck_backup';

export class BackupError extends Error {}

export interface BackupResult {
  file: string;
  bytes: number;
  includesSecretKey: boolean;
}

export function backupSqlite(opts: { dataDir: string; sqliteFile?: string; out: string; env?: NodeJS.ProcessEnv }): BackupResult {
  const env = opts.env ?? process.env;
  const source = opts.sqliteFile ?? path.join(opts.dataDir, SQLITE_FILE);
  if (!fs.existsSync(source)) throw new BackupError(`no database at ${source}`);
  const out = path.resolve(opts.out);
  if (fs.existsSync(out)) throw new BackupError(`${out} exists; choose a new file`);
  const tmp = `${out}.partial-${process.pid}`;
  // VACUUM INTO accepts an existing empty file: creating it first fixes its mode at 0600.
  fs.closeSync(fs.openSync(tmp, 'wx', 0o600));
  try {
    const src = new SQLite(source, { fileMustExist: true });
    try {
      src.pragma('busy_timeout = 10000');
      src.prepare('VACUUM INTO ?').run(tmp);
    } finally {
      src.close();
    }
    const keyFile = carriedKeyFile(opts.dataDir, env);
    const dst = new SQLite(tmp);
    try {
      dst.pragma('journal_mode = DELETE');
      dst.exec(`CREATE TABLE ${META_TABLE} (name TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      const put = dst.prepare(`INSERT INTO ${META_TABLE} (name, value) VALUES (?, ?)`);
      put.run('created_at', new Date().toISOString());
      if (keyFile) put.run('secret_key', fs.readFileSync(keyFile, 'utf8').trim());
    } finally {
      dst.close();
    }
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, out);
    return { file: out, bytes: fs.statSync(out).size, includesSecretKey: keyFile !== null };
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The data dir's own key file, when that is where the engine keeps its key. */
function carriedKeyFile(dataDir: string, env: NodeJS.ProcessEnv): string | null {
  if (env.BROWSERDECK_SECRET_KEY) return null;
  const own = path.join(dataDir, KEY_FILE);
  if (env.BROWSERDECK_SECRET_KEY_FILE && path.resolve(env.BROWSERDECK_SECRET_KEY_FILE) !== path.resolve(own)) return null;
  return fs.existsSync(own) ? own : null;
}

export interface RestoreResult {
  sqliteFile: string;
  restoredSecretKey: boolean;
}

export function restoreSqlite(opts: { backup: string; dataDir: string; force?: boolean }): RestoreResult {
  const backup = path.resolve(opts.backup);
  if (!fs.existsSync(backup)) throw new BackupError(`no backup at ${backup}`);
  const pid = runningEnginePid(opts.dataDir);
  if (pid !== null)
    throw new BackupError(
      `an engine (pid ${pid}) is running on ${opts.dataDir}; stop it first (or remove ${path.join(opts.dataDir, 'engine.pid')} if it is not an engine)`,
    );
  const target = path.join(opts.dataDir, SQLITE_FILE);
  const keyTarget = path.join(opts.dataDir, KEY_FILE);
  const occupied = [target, keyTarget].filter((f) => fs.existsSync(f));
  if (occupied.length && !opts.force)
    throw new BackupError(
      `${opts.dataDir} already has ${occupied.map((f) => path.basename(f)).join(' and ')}; restore into an empty data dir, or pass --force to replace them`,
    );

  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const tmp = path.join(opts.dataDir, `${SQLITE_FILE}.restoring-${process.pid}`);
  fs.copyFileSync(backup, tmp);
  fs.chmodSync(tmp, 0o600);
  let secretKey: string | undefined;
  try {
    const db = new SQLite(tmp, { fileMustExist: true });
    try {
      const check = db.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`${backup} fails PRAGMA integrity_check: ${String(check)}`);
      const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(META_TABLE);
      if (!hasMeta) throw new BackupError(`${backup} is not a Browserdeck backup (no ${META_TABLE} table)`);
      secretKey = (db.prepare(`SELECT value FROM ${META_TABLE} WHERE name = 'secret_key'`).get() as { value: string } | undefined)?.value;
      db.exec(`DROP TABLE ${META_TABLE}`);
    } finally {
      db.close();
    }
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${backup} is not a readable SQLite database: ${(err as Error).message}`);
  }
  // The old database's WAL must not be replayed onto the restored file.
  for (const f of [target, `${target}-wal`, `${target}-shm`]) fs.rmSync(f, { force: true });
  fs.renameSync(tmp, target);
  if (secretKey) fs.writeFileSync(keyTarget, secretKey + '\n', { mode: 0o600 });
  return { sqliteFile: target, restoredSecretKey: Boolean(secretKey) };
}
