/**
 * Keeps node_modules in step with package-lock.json: `npm ci` when node_modules is missing or
 * the lock changed since the last install. The fast path is a stamp file holding the lock's
 * hash; when the stamp is missing or stale we compare the lock with npm's own record of what is
 * installed (node_modules/.package-lock.json) before reinstalling, so an `npm i <pkg>` done by
 * hand (which updates both) does not trigger a full, slow `npm ci`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { run, say } from './run.mjs';
import { installEnv } from './install-env.mjs';

const STAMP = '.browserdeck-install-stamp';
/** Present while a background `npm rebuild` has not finished: the next run rebuilds before anything else. */
const REBUILD_PENDING = '.browserdeck-rebuild-pending';

function lockHash(root) {
  return crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(root, 'package-lock.json')))
    .digest('hex');
}

/** True when every package the lock names is installed at the locked version. */
function installedMatchesLock(root) {
  const hiddenFile = path.join(root, 'node_modules', '.package-lock.json');
  if (!fs.existsSync(hiddenFile)) return false;
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')).packages ?? {};
  const hidden = JSON.parse(fs.readFileSync(hiddenFile, 'utf8')).packages ?? {};
  for (const [key, entry] of Object.entries(lock)) {
    if (key === '') continue;
    const have = hidden[key];
    // Optional packages for other platforms (esbuild/rollup binaries …) are legitimately absent.
    if (!have) {
      if (entry.optional || entry.devOptional) continue;
      return false;
    }
    if (entry.version !== have.version) return false;
  }
  return true;
}

/**
 * better-sqlite3 is compiled against one Node ABI; packaging the desktop app with
 * electron-builder rebuilds it in place for Electron's ABI, after which Node cannot load it.
 */
async function ensureNativeModulesLoad(root) {
  const probe = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root, encoding: 'utf8' });
  if (probe.status === 0 || !/NODE_MODULE_VERSION|was compiled against|Could not locate the bindings file/.test(probe.stderr)) return;
  say('better-sqlite3 cannot be loaded by Node (built for Electron, or its build is missing): npm rebuild better-sqlite3');
  const code = await run('npm', ['rebuild', 'better-sqlite3'], { cwd: root, env: installEnv() });
  if (code !== 0) say(`npm rebuild better-sqlite3 failed (exit ${code})`);
}

/**
 * Installs node_modules when they are missing or stale. `background`: the packages' install
 * scripts (the native modules' compile: better-sqlite3's SQLite alone keeps one core busy for about
 * a minute) run after `npm ci --ignore-scripts` returns, as `npm rebuild`, with their output in
 * `out/bootstrap/npm-rebuild.log`: `npm test`'s static checks need only the packages' JavaScript.
 * Resolves with `scripts`, which settles with the rebuild's `{ code, seconds }` (null at once when none ran).
 */
export async function ensureNodeModules(root, { background = false } = {}) {
  const stampFile = path.join(root, 'node_modules', STAMP);
  const want = lockHash(root);
  const have = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : null;
  const pending = path.join(root, 'node_modules', REBUILD_PENDING);
  const env = installEnv();
  if (have === want || (fs.existsSync(path.join(root, 'node_modules')) && installedMatchesLock(root))) {
    // The packages are there, but an earlier run's background rebuild was interrupted or failed:
    // the packages' install scripts (all native modules, not only better-sqlite3) run now.
    if (fs.existsSync(pending)) {
      say('the last install scripts did not finish: npm rebuild');
      const code = await run('npm', ['rebuild'], { cwd: root, env });
      if (code !== 0) {
        say(`npm rebuild failed (exit ${code})`);
        process.exit(code);
      }
      fs.rmSync(pending);
    }
    if (have !== want) fs.writeFileSync(stampFile, want + '\n');
    await ensureNativeModulesLoad(root);
    return { scripts: Promise.resolve(null) };
  }
  say(fs.existsSync(path.join(root, 'node_modules')) ? 'package-lock.json changed since the last install: npm ci' : 'node_modules missing: npm ci');
  const code = await run('npm', ['ci', '--no-audit', '--no-fund', ...(background ? ['--ignore-scripts'] : [])], { cwd: root, env });
  if (code !== 0) {
    say(`npm ci failed (exit ${code})`);
    process.exit(code);
  }
  if (!background) {
    fs.writeFileSync(stampFile, want + '\n');
    return { scripts: Promise.resolve(null) };
  }
  const log = path.join(root, 'out', 'bootstrap', 'npm-rebuild.log');
  fs.mkdirSync(path.dirname(log), { recursive: true });
  say(`the packages' install scripts (native modules) run in the background: npm rebuild (log: ${path.relative(root, log)})`);
  fs.writeFileSync(pending, '');
  fs.writeFileSync(stampFile, want + '\n');
  const fd = fs.openSync(log, 'w');
  const t0 = Date.now();
  const scripts = run('npm', ['rebuild'], { cwd: root, env, stdio: ['ignore', fd, fd] }).then((rebuilt) => {
    fs.closeSync(fd);
    // Until then the pending mark stays: an interrupted or failed rebuild is redone by the next run.
    if (rebuilt === 0) fs.rmSync(pending);
    else say(`npm rebuild failed (exit ${rebuilt}); its output: ${log}`);
    return { code: rebuilt, seconds: (Date.now() - t0) / 1000 };
  });
  return { scripts };
}
