/**
 * The engine's command line, as a function: `npm run serve -- …` (cli.ts) and `browserdeck serve …`
 * (src/cli/commands/serve.ts) both call it with the arguments after the command name.
 *
 *   [--port N] [--host H] [--data-dir DIR] …   run the engine and the operator UI until SIGINT/SIGTERM
 *   backup <file> / restore <file> [--force]   the SQLite store's backup and restore
 *
 * Every flag: config-options.ts (`--help`). Returns only when the command is done (backup,
 * restore, help, a usage error): serving ends the process from its signal handlers.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveConfig } from './config.js';
import { engineOptionsFromFlags, helpText, parseArgsOptions } from './config-options.js';
import { runBackupCommand } from './cli-backup.js';

/** Runs `args`; resolves with an exit code for the commands that end, or never for a served engine (it exits on SIGINT/SIGTERM). */
export async function runServe(args: string[]): Promise<number> {
  // The flags, their help and the options they set come from one table (config-options.ts).
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    process.stderr.write(`${(err as Error).message} (browserdeck serve --help lists the flags)\n`);
    return 2;
  }
  const { values, positionals } = parsed;

  if (values.help) {
    process.stdout.write(
      `browserdeck serve [flags]                              run the engine and the operator UI\n` +
        `browserdeck serve backup <file> [--data-dir DIR]     online backup of the SQLite store (engine may run)\n` +
        `browserdeck serve restore <file> [--data-dir DIR] [--force]   into a data dir no engine runs on\n\n` +
        `Flags (each also read from its environment variable when absent):\n` +
        helpText(),
    );
    return 0;
  }

  const [command, file, ...extra] = positionals;
  if (command === 'backup' || command === 'restore') {
    if (extra.length) process.stderr.write(`ignoring extra arguments: ${extra.join(' ')}\n`);
    const flags = engineOptionsFromFlags(values);
    const { dataDir, databaseUrl } = resolveConfig({ dataDir: flags.dataDir, databaseUrl: flags.databaseUrl });
    return runBackupCommand(command, file, { dataDir, databaseUrl, force: values.force === true });
  } else if (command !== undefined) {
    process.stderr.write(`unknown command '${command}' (serve takes flags, or: backup <file>, restore <file>)\n`);
    return 2;
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

  try {
    const { url } = await engine.start();
    process.stdout.write(`Browserdeck listening on ${url}  (data: ${engine.config.dataDir})\nOperator UI: ${url}/\n`);
  } catch (err) {
    process.stderr.write(`Browserdeck failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  // Served: the signal handlers above end the process.
  return new Promise<number>(() => {});
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...parseArgsOptions(),
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
