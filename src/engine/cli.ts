/**
 * `npm run serve -- [--port N] [--host H] [--data-dir DIR] … ` (every flag: config-options.ts, `--help`)
 * Runs the engine and the operator UI until SIGINT/SIGTERM, then stops cleanly.
 * `npm run serve -- backup <file>` / `restore <file> [--force]`: the SQLite store's backup and restore.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveConfig } from './config.js';
import { engineOptionsFromFlags, helpText, parseArgsOptions } from './config-options.js';
import { runBackupCommand } from './cli-backup.js';

// The flags, their help and the options they set come from one table (config-options.ts).
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...parseArgsOptions(),
    force: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(
    `browserdeck serve [flags]                              run the engine and the operator UI\n` +
      `browserdeck serve backup <file> [--data-dir DIR]     online backup of the SQLite store (engine may run)\n` +
      `browserdeck serve restore <file> [--data-dir DIR] [--force]   into a data dir no engine runs on\n\n` +
      `Flags (each also read from its environment variable when absent):\n` +
      helpText(),
  );
  process.exit(0);
}

const [command, file, ...extra] = positionals;
if (command === 'backup' || command === 'restore') {
  if (extra.length) process.stderr.write(`ignoring extra arguments: ${extra.join(' ')}\n`);
  const flags = engineOptionsFromFlags(values);
  const { dataDir, databaseUrl } = resolveConfig({ dataDir: flags.dataDir, databaseUrl: flags.databaseUrl });
  process.exit(runBackupCommand(command, file, { dataDir, databaseUrl, force: values.force === true }));
} else if (command !== undefined) {
  process.stderr.write(`unknown command '${command}' (serve takes flags, or: backup <file>, restore <file>)\n`);
  process.exit(2);
}

// Loaded only to serve: backup and restore start fast without the whole engine.
const { createEngine } = await import('./engine.js');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Unset flags: the environment decides, else the defaults (config.ts).
const engine = createEngine({ ...engineOptionsFromFlags(values), uiDir: path.join(root, 'out/renderer') });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping Browserdeck…\n`);
  await engine.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

engine
  .start()
  .then(({ url }) => {
    process.stdout.write(`Browserdeck listening on ${url}  (data: ${engine.config.dataDir})\nOperator UI: ${url}/\n`);
  })
  .catch((err) => {
    process.stderr.write(`Browserdeck failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
