/**
 * `npm run serve -- [--port N] [--host H] [--data-dir DIR] [--database-url URL] [--chromium PATH]`
 * Runs the engine and the operator UI until SIGINT/SIGTERM, then stops cleanly.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from './engine.js';
import { DEFAULT_PORT } from './config.js';

const { values } = parseArgs({
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
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  process.stdout.write(`browserdeck serve [--port ${DEFAULT_PORT}] [--host 127.0.0.1] [--data-dir DIR] [--database-url postgres://…] [--chromium PATH] [--public-url URL] [--node-url URL] [--max-concurrent-sessions N] [--egress-deny CIDR,CIDR…] [--insecure-no-jail]\n`);
  process.exit(0);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engine = createEngine({
  port: values.port !== undefined ? Number(values.port) : undefined,
  host: values.host,
  dataDir: values['data-dir'],
  databaseUrl: values['database-url'],
  chromiumPath: values.chromium,
  publicUrl: values['public-url'],
  nodeUrl: values['node-url'],
  maxConcurrentSessions: values['max-concurrent-sessions'] ? Number(values['max-concurrent-sessions']) : undefined,
  uiDir: path.join(root, 'out/renderer'),
  insecureNoJail: values['insecure-no-jail'] || undefined,
  egressDeny: values['egress-deny'] !== undefined ? values['egress-deny'].split(',').map((s) => s.trim()).filter(Boolean) : undefined,
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
