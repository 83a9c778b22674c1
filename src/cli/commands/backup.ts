/**
 * `browserdeck backup <file>` and `browserdeck restore <file> [--force]`: the SQLite store's online
 * backup and its restore (src/engine/cli-backup.ts, as `npm run serve -- backup|restore`). They
 * read the data dir and database URL like the engine: `--data-dir`, `--database-url`, or
 * BROWSERDECK_DATA_DIR / BROWSERDECK_DATABASE_URL.
 */
import type { Command } from 'commander';
import { runBackupCommand } from '../../engine/cli-backup.js';
import { resolveConfig } from '../../engine/config.js';

interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
  force?: boolean;
}

function run(command: 'backup' | 'restore', file: string, flags: StoreFlags): void {
  const { dataDir, databaseUrl } = resolveConfig({ dataDir: flags.dataDir, databaseUrl: flags.databaseUrl });
  process.exitCode = runBackupCommand(command, file, { dataDir, databaseUrl, force: flags.force === true });
}

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description("online backup of the engine's SQLite store (the engine may be running)")
    .argument('<file>', 'where to write the backup (mode 0600)')
    .option('--data-dir <dir>', 'the engine data dir (default: BROWSERDECK_DATA_DIR, else the engine default)')
    .option('--database-url <url>', 'a SQLite file instead of <data-dir>/browserdeck.sqlite')
    .action((file: string, flags: StoreFlags) => run('backup', file, flags));
  program
    .command('restore')
    .description('restore a backup into a data dir no engine runs on')
    .argument('<file>', 'the backup')
    .option('--data-dir <dir>', 'the engine data dir to restore into')
    .option('--force', 'replace an existing store')
    .action((file: string, flags: StoreFlags) => run('restore', file, flags));
}
