/**
 * `serve -- backup <file>` and `serve -- restore <file> [--force]`: the SQLite store's online
 * backup and its restore into a data dir (store/sqlite-backup.ts). PostgreSQL has its own
 * tools (pg_dump/pg_restore, see docs/operate/backups.md).
 */
import { BackupError, backupSqlite, restoreSqlite } from './store/sqlite-backup.js';

export function runBackupCommand(
  command: 'backup' | 'restore',
  file: string | undefined,
  opts: { dataDir: string; databaseUrl?: string; force?: boolean },
): number {
  if (!file) {
    process.stderr.write(`usage: browserdeck ${command} <file> [--data-dir DIR]${command === 'restore' ? ' [--force]' : ''}\n`);
    return 2;
  }
  if (opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl)) {
    process.stderr.write(`${command}: this engine uses PostgreSQL; use pg_dump / pg_restore (see docs/operate/backups.md)\n`);
    return 2;
  }
  const sqliteFile = opts.databaseUrl?.replace(/^sqlite:(\/\/)?/, '') || undefined;
  try {
    if (command === 'backup') {
      const r = backupSqlite({ dataDir: opts.dataDir, sqliteFile, out: file });
      process.stdout.write(
        `backup written to ${r.file} (${r.bytes} bytes, mode 0600)\n` +
          (r.includesSecretKey
            ? 'it contains the secret key that decrypts credentials and proxy passwords: keep it as secret as the data dir\n'
            : 'the secret key is not in it (BROWSERDECK_SECRET_KEY / BROWSERDECK_SECRET_KEY_FILE): keep that key with the backup, encrypted values need it\n'),
      );
    } else {
      if (sqliteFile) throw new BackupError('restore writes <data-dir>/browserdeck.sqlite; give --data-dir, not --database-url');
      const r = restoreSqlite({ backup: file, dataDir: opts.dataDir, force: opts.force });
      process.stdout.write(
        `restored ${r.sqliteFile}${r.restoredSecretKey ? ' and secret.key' : ' (the backup carried no secret key: provide the original one)'}\n`,
      );
    }
    return 0;
  } catch (err) {
    process.stderr.write(`${command} failed: ${err instanceof BackupError ? err.message : (err as Error).stack}\n`);
    return 1;
  }
}
