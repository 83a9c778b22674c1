#!/usr/bin/env node
/**
 * `npm run serve` and `npm test` on a fresh clone: installs what is missing, then runs.
 * Plain Node with builtins only, because it runs before node_modules exists.
 *
 *   node scripts/bootstrap.mjs serve [--] [cli flags…]   → src/engine/cli.ts (SIGINT/SIGTERM forwarded)
 *   node scripts/bootstrap.mjs serve -- backup|restore <file> [--data-dir DIR]   (no UI build)
 *   node scripts/bootstrap.mjs test  [--] [vitest filters…]
 *
 * Both: `npm ci` when node_modules is missing or package-lock.json changed; as root on Debian,
 * `apt-get install` the system programs that are missing (elsewhere: print how to get them);
 * for `test` also podman, runc, debootstrap and podman-compose (bootstrap/container-tools.mjs),
 * in the background while `npm ci` and the static checks run (bootstrap/system-install.mjs).
 * `test` then runs typecheck, lint, the desktop build, the whole suite on SQLite, and the
 * database-dependent tests again on a private PostgreSQL cluster (files tagged `@database` or
 * named *.pg.test.ts; see bootstrap/test-selection.mjs). BROWSERDECK_SKIP_INSTALL=1 skips the two install steps.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeModules } from './bootstrap/node-modules.mjs';
import { ensureSystemPackages } from './bootstrap/system-packages.mjs';
import { startSystemInstall } from './bootstrap/system-install.mjs';
import { buildDesktopBundles } from './bootstrap/renderer-build.mjs';
import { received, run, say } from './bootstrap/run.mjs';
import { runTests, startPrebuild } from './bootstrap/test-run.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...rest] = process.argv.slice(2);
const args = rest[0] === '--' ? rest.slice(1) : rest;

if (command !== 'serve' && command !== 'test') {
  process.stderr.write('usage: node scripts/bootstrap.mjs serve|test [-- args…]\n');
  process.exit(2);
}

const install = process.env.BROWSERDECK_SKIP_INSTALL !== '1';
// `test` installs its system packages in the background, beside `npm ci` (whose native modules
// compile on one core) and the static checks (bootstrap/system-install.mjs).
const systemReady = install && command === 'test' ? startSystemInstall(root) : undefined;
// `test` starts building the container images too: the first need only podman, not node_modules.
const prebuild = command === 'test' ? startPrebuild(root, args, systemReady) : null;
// `test` also compiles the native modules in the background, beside the static checks.
let nodeModulesReady;
if (install) {
  ({ scripts: nodeModulesReady } = await ensureNodeModules(root, { background: command === 'test' }));
  if (command === 'serve') await ensureSystemPackages({ needPostgres: false });
}

if (command === 'serve') {
  // `serve -- backup|restore <file>` only touch the store: no operator UI to build.
  const offline = args[0] === 'backup' || args[0] === 'restore';
  const built = offline ? 0 : await buildDesktopBundles(root);
  if (built !== 0) say(`electron-vite build failed (exit ${built}); serving the API without the operator UI`);
  if (received.signal) process.exit(130);
  // `node --import tsx` (rather than the tsx binary) keeps one process between us and the
  // engine, so the signal we forward is the one the engine's own handler sees.
  const code = await run(process.execPath, ['--import', 'tsx', 'src/engine/cli.ts', ...args], { cwd: root });
  process.exit(code);
} else {
  process.exit(await runTests(root, args, { systemReady, nodeModulesReady, prebuild }));
}
