/**
 * `npm run serve -- [--port N] [--host H] [--data-dir DIR] [--database-url URL] [--chromium PATH]`
 * Runs the engine and the operator UI until SIGINT/SIGTERM, then stops cleanly.
 * `npm run serve -- backup <file>` / `restore <file> [--force]`: the SQLite store's backup and restore.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, listFrom, numberFrom, resolveConfig } from './config.js';
import { runBackupCommand } from './cli-backup.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    chromium: { type: 'string' },
    'public-url': { type: 'string' },
    'node-url': { type: 'string' },
    'max-concurrent-sessions': { type: 'string' },
    'insecure-no-jail': { type: 'boolean' },
    'egress-deny': { type: 'string' },
    'egress-allow-loopback': { type: 'boolean' },
    'otlp-allowed-hosts': { type: 'string' },
    region: { type: 'string' },
    standby: { type: 'string' },
    'standby-memory': { type: 'string' },
    'freeze-idle-seconds': { type: 'string' },
    'runner-message-max-mb': { type: 'string' },
    'session-disk-mb': { type: 'string' },
    'disk-reserve-mb': { type: 'string' },
    'jail-uid-base': { type: 'string' },
    'jail-uid-count': { type: 'string' },
    'fs-watch-max-dirs': { type: 'string' },
    'pids-per-session': { type: 'string' },
    'pids-per-engine': { type: 'string' },
    'exec-per-session': { type: 'string' },
    'exec-per-engine': { type: 'string' },
    'exec-output-max-bytes': { type: 'string' },
    'connections-per-session': { type: 'string' },
    'connections-per-engine': { type: 'string' },
    force: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(
    `browserdeck serve [--port ${DEFAULT_PORT}] [--host 127.0.0.1] [--data-dir DIR] [--database-url postgres://…] [--chromium PATH] [--public-url URL] [--node-url URL] [--max-concurrent-sessions N] [--egress-deny CIDR,CIDR…] [--egress-allow-loopback] [--otlp-allowed-hosts HOST,CIDR…] [--region us-east] [--standby N] [--standby-memory MB] [--freeze-idle-seconds S] [--fs-watch-max-dirs N] [--runner-message-max-mb MB] [--pids-per-session N] [--pids-per-engine N] [--session-disk-mb MB] [--disk-reserve-mb MB] [--exec-per-session 8] [--exec-per-engine 32] [--exec-output-max-bytes 4194304] [--connections-per-session 64] [--connections-per-engine N] [--insecure-no-jail]\n` +
      `browserdeck serve backup <file> [--data-dir DIR]     online backup of the SQLite store (engine may run)\n` +
      `browserdeck serve restore <file> [--data-dir DIR] [--force]   into a data dir no engine runs on\n`,
  );
  process.exit(0);
}

const [command, file, ...extra] = positionals;
if (command === 'backup' || command === 'restore') {
  if (extra.length) process.stderr.write(`ignoring extra arguments: ${extra.join(' ')}\n`);
  const { dataDir, databaseUrl } = resolveConfig({ dataDir: values['data-dir'], databaseUrl: values['database-url'] });
  process.exit(runBackupCommand(command, file, { dataDir, databaseUrl, force: values.force }));
} else if (command !== undefined) {
  process.stderr.write(`unknown command '${command}' (serve takes flags, or: backup <file>, restore <file>)\n`);
  process.exit(2);
}

// Loaded only to serve: backup and restore start fast without the whole engine.
const { createEngine } = await import('./engine.js');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engine = createEngine({
  port: numberFrom(values.port),
  host: values.host,
  dataDir: values['data-dir'],
  databaseUrl: values['database-url'],
  chromiumPath: values.chromium,
  publicUrl: values['public-url'],
  nodeUrl: values['node-url'],
  maxConcurrentSessions: numberFrom(values['max-concurrent-sessions']),
  uiDir: path.join(root, 'out/renderer'),
  insecureNoJail: values['insecure-no-jail'] || undefined,
  region: values.region,
  standby: numberFrom(values.standby),
  standbyMemoryMb: numberFrom(values['standby-memory']),
  freezeIdleSeconds: numberFrom(values['freeze-idle-seconds']),
  runnerMessageMaxMb: numberFrom(values['runner-message-max-mb']),
  sessionDiskMb: numberFrom(values['session-disk-mb']),
  diskReserveMb: numberFrom(values['disk-reserve-mb']),
  jailUids: { base: numberFrom(values['jail-uid-base']), count: numberFrom(values['jail-uid-count']) },
  fsWatchMaxDirs: numberFrom(values['fs-watch-max-dirs']),
  pids: { perSession: numberFrom(values['pids-per-session']), perEngine: numberFrom(values['pids-per-engine']) },
  // Unset ones: the environment decides, else the defaults (config.ts).
  execLimits: {
    perSession: numberFrom(values['exec-per-session']),
    perEngine: numberFrom(values['exec-per-engine']),
    outputMaxBytes: numberFrom(values['exec-output-max-bytes']),
  },
  connectionLimits: { perSession: numberFrom(values['connections-per-session']), perEngine: numberFrom(values['connections-per-engine']) },
  egressDeny: listFrom(values['egress-deny']),
  // Unset: the environment decides, else jailed pages and apps may not reach this host's loopback (config.ts).
  egressLoopback: values['egress-allow-loopback'] || undefined,
  otlpAllowedHosts: listFrom(values['otlp-allowed-hosts']),
});

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
