/**
 * `npm test`: vitest on SQLite and, in the same run, the database-dependent tests again on a
 * private PostgreSQL cluster; beside them the unit tests and, at the lowest CPU priority, the typecheck (the whole
 * tree and each process's own config), lint, format check and desktop build. Every stage runs even
 * when another one failed (one report shows everything that is broken); the exit code is non-zero
 * if any failed. Ctrl-C / SIGTERM stop the running stages, tear the cluster down, and exit.
 *
 * When the run selects the deploy tests, the container images build in the background from the
 * start (startPrebuild, image-prebuild.mjs), beside `npm ci` and the static checks; the deploy
 * tests wait for that build.
 *
 * Each vitest run gets a private TMPDIR; whatever is left in it afterwards (a browser's temp
 * dir, a test data dir, a socket) is a leak and fails the run's "nothing left behind" stage.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failedTests } from './failed-tests.mjs';
import { runReportArgs } from './run-report.mjs';
import { selectsDeployTests, startImagePrebuild } from './image-prebuild.mjs';
import { slowestFiles } from './slowest-files.mjs';
import { buildDesktopBundles } from './renderer-build.mjs';
import { startPostgresCluster } from './postgres-cluster.mjs';
import { postgresBinDir } from './system-packages.mjs';
import { received, run, say } from './run.mjs';
import { typecheckArgs } from './typecheck-args.mjs';
import { pgTestFiles, testFiles } from './test-selection.mjs';

/**
 * The typecheck: one `tsgo -b` (TypeScript 7's native compiler, about eight times faster than
 * TypeScript 5.9's `tsc -b` here) over the whole tree's config (tsconfig.json: tests, scripts, bench,
 * DOM and Node) and one config per process (the engine and Electron main without the DOM lib, the
 * preload with it, the renderer without Node types). The engine's is composite and referenced by
 * the others, which read its declarations: each engine file is checked once, not three times.
 * Its arguments (when `--force` is needed) are typecheck-args.mjs's. `npm run typecheck` always forces.
 */
export { TYPECHECK_CONFIGS } from './typecheck-args.mjs';

/**
 * ESLint and Prettier skip a file whose content, and their own version and config, are what they
 * last passed (their caches, kept in out/cache like tsc's state in out/tsc): a second run checks
 * only what changed. `npm run lint` uses the same cache.
 */
export const ESLINT_ARGS = ['.', '--cache', '--cache-strategy', 'content', '--cache-location', 'out/cache/eslint'];
export const PRETTIER_CACHE_ARGS = ['--cache', '--cache-strategy', 'content', '--cache-location', 'out/cache/prettier'];

/** What Prettier formats (Markdown stays hand-wrapped). Also used by `npm run format`. */
export const FORMATTED = ['src/**/*.{ts,tsx,mjs,js,css,html}', 'test/**/*.{ts,tsx,mjs}', 'scripts/**/*.mjs', 'bench/**/*.ts', '*.{ts,mjs}'];

/**
 * The niceness of the static checks and the desktop build, which run beside the integration
 * passes: the lowest priority, so they use only CPU time the tests leave idle.
 */
const BACKGROUND_NICE = 19;

/** Caches tools keep in TMPDIR on purpose; not leaks. */
const TMP_CACHES = [/^tsx-\d+$/, /^node-compile-cache$/, /^vite-/];

/** Runs `fn(env)` with TMPDIR pointing at a fresh dir; resolves with what was left in it. */
async function withPrivateTmp(env, fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-run-'));
  // Like /tmp itself: tests may run programs as other users (postgres, an unprivileged browser).
  fs.chmodSync(dir, 0o1777);
  try {
    const code = await fn({ ...env, TMPDIR: dir });
    const left = fs.readdirSync(dir).filter((e) => !TMP_CACHES.some((re) => re.test(e)));
    return { code, left };
  } finally {
    // After an interrupt, dying browsers may still be writing into the dir while it is removed
    // (ENOTEMPTY): retry, and never let cleanup crash the run before its summary and the
    // PostgreSQL cluster's teardown.
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (err) {
      say(`could not remove ${dir}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Runs the tasks, at most `n` at a time, in order of the list. */
async function inParallel(n, tasks) {
  const queue = [...tasks];
  const worker = async () => {
    for (let task = queue.shift(); task; task = queue.shift()) await task();
  };
  await Promise.all(Array.from({ length: Math.min(n, queue.length) }, worker));
}

/** vitest's file filters among `npm test`'s arguments (its flags start with `-`). */
const filtersOf = (args) => args.filter((a) => !a.startsWith('-'));

/**
 * Starts the background image build when the run (`args`: vitest's filters and flags) selects a
 * deploy test; null otherwise. Called before `npm ci`: the first images need only podman.
 */
export function startPrebuild(root, args, systemReady) {
  if (!selectsDeployTests(filtersOf(args))) return null;
  say(`building the container images in the background (log: out/image/prebuild.log)`);
  return startImagePrebuild(root, systemReady);
}

/**
 * `systemReady`: the background install of the system packages (system-install.mjs), awaited
 * before anything that runs them (the image build, the vitest passes); undefined when skipped.
 * `nodeModulesReady`: the background `npm rebuild` of a fresh install (node-modules.mjs), settling
 * with its `{ code, seconds }` (null: none ran), awaited before anything that loads a native module or copies node_modules.
 * `prebuild`: startPrebuild's build, or null.
 */
export async function runTests(root, args, { systemReady, nodeModulesReady, prebuild = null } = {}) {
  const bin = (name) => path.join(root, 'node_modules', '.bin', name);
  const filters = filtersOf(args);
  const results = [];
  const leaks = [];
  const failures = [];
  const slowest = [];
  // Each pass's JSON report stays in out/bootstrap (per file: start, end, tests) for whoever looks
  // at where the run's time went after it; the next run replaces them.
  const reportDir = path.join(root, 'out', 'bootstrap');
  fs.mkdirSync(reportDir, { recursive: true });
  const stage = async (name, fn) => {
    if (received.signal) return;
    say(`── ${name}`);
    const t0 = Date.now();
    const code = await fn();
    results.push({ name, code, seconds: (Date.now() - t0) / 1000 });
  };
  let passes = 0;
  const vitest = (name, argv, env) =>
    stage(name, async () => {
      // A user's own --reporter choice wins; otherwise the run report (run-report.mjs) feeds the
      // summary's lists of failures and slow files, and stays in out/bootstrap for whoever looks
      // at where the run's time went (each module's project, file, seconds and failures).
      const report = path.join(reportDir, `vitest-report-${passes++}.json`);
      fs.rmSync(report, { force: true });
      const reporters = args.some((a) => a.startsWith('--reporter')) ? [] : runReportArgs();
      const { code, left } = await withPrivateTmp({ ...env, BROWSERDECK_RUN_REPORT: report }, (e) =>
        run(bin('vitest'), [...argv, ...reporters], { cwd: root, env: e }),
      );
      if (left.length && !received.signal) leaks.push(`${name}: ${left.join(', ')}`);
      const failed = code === 0 ? [] : failedTests(report, root);
      if (failed.length) failures.push(`${name}:`, ...failed);
      for (const { title, lines } of slowestFiles(report, root)) if (lines.length) slowest.push(`slowest files, ${title} —`, ...lines);
      return code;
    });
  const t0 = Date.now();

  // The images the deploy tests run are built meanwhile (minutes when cold, mostly apt and dpkg in
  // podman), started by the caller before `npm ci` (startPrebuild); the engine's image copies the
  // console and the native modules, so it waits for the build stage below and the rebuild.
  let consoleBuilt = () => {};
  const consoleReady = new Promise((resolve) => (consoleBuilt = resolve));
  prebuild?.engineInputs(Promise.all([consoleReady, nodeModulesReady]));
  const setupReady = Promise.all([systemReady, nodeModulesReady]);

  const sqliteEnv = { ...process.env, ...prebuild?.env };
  delete sqliteEnv.BROWSERDECK_TEST_DATABASE_URL;
  // Two vitest projects (vitest.config.ts): the unit tests beside pure modules in src/, and the
  // integration suite in test/; each file runs in exactly one.
  // With filters (vitest's: substrings of the file path), a project none of whose files match
  // is left out, unless neither matches: then both run and fail with vitest's "no test files".
  const matching = (dir) => testFiles(root, dir).some((f) => filters.some((x) => f.includes(x)));
  const [srcMatches, testMatches] = filters.length ? [matching('src'), matching('test')] : [false, false];
  const both = !filters.length || (!srcMatches && !testMatches);

  // The unit tests, the desktop build and the static checks need neither the native modules nor
  // the system packages: they run beside the native rebuild (one core on better-sqlite3's SQLite
  // for about half a minute on a fresh machine) and then beside the SQLite pass, which starts as
  // soon as the rebuild and apt are done instead of after them. Two at a time. The unit tests go
  // first, at normal priority: they have timeouts, and at the lowest priority beside a busy pass
  // one timed out (a 5 s test starved of CPU). The rest run at the lowest CPU priority
  // (BACKGROUND_NICE): they take what the tests leave idle and do not slow them down.
  const background = { nice: BACKGROUND_NICE };
  const checks = (async () => {
    await inParallel(2, [
      // The unit tests load neither a native module nor a system program (they pass with the
      // native builds moved away).
      () => (both || srcMatches ? vitest('unit tests (vitest --project unit)', ['run', '--project', 'unit', ...args], sqliteEnv) : undefined),
      // Early (seconds): the background build of the engine's image waits for the console.
      () =>
        stage('build (electron-vite build)', async () => {
          try {
            return await buildDesktopBundles(root, { force: true, ...background });
          } finally {
            consoleBuilt();
          }
        }),
      () => stage('typecheck (tsgo -b, TYPECHECK_CONFIGS)', () => run(bin('tsgo'), typecheckArgs(root), { cwd: root, ...background })),
      () => stage('lint (eslint .)', () => run(bin('eslint'), ESLINT_ARGS, { cwd: root, ...background })),
      // One formatter (Prettier, .prettierrc.json), applied once to the whole tree: a file it would
      // reformat fails the run. `npm run format` rewrites them.
      () =>
        stage('format (prettier --check)', () =>
          run(bin('prettier'), ['--check', '--log-level', 'warn', ...PRETTIER_CACHE_ARGS, ...FORMATTED], { cwd: root, ...background }),
        ),
    ]);
    // Interrupted before the build stage ran: the background build must not wait for it forever.
    consoleBuilt();
  })();

  // The database-tagged files (test-selection.mjs) run a second time on a private PostgreSQL
  // cluster, in the same vitest run as the SQLite files: as project `integration-pg`
  // (vitest.config.ts), which exists when BROWSERDECK_PG_PASS_URL names the cluster. One run
  // instead of two: no second start of vitest and its workers, and the PostgreSQL files fill the
  // end of the run, where the SQLite files alone left a core idle while the last of them finished.
  // The cluster starts as soon as the system packages are in, beside the native rebuild.
  const pgFiles = received.signal ? [] : pgTestFiles(root, filters);
  let pgNote = pgFiles.length || received.signal ? '' : 'no PostgreSQL test files matched: PostgreSQL pass skipped';
  const clusterReady = pgFiles.length
    ? Promise.resolve(systemReady)
        .then(() => startPostgresCluster(postgresBinDir()))
        .catch((err) => {
          results.push({ name: 'start PostgreSQL test cluster', code: 1, seconds: 0 });
          say(String(err instanceof Error ? err.message : err));
          return null;
        })
    : Promise.resolve(null);

  const [installed, rebuilt] = await setupReady;
  if (installed?.log)
    results.push({ name: `system packages (apt-get, beside the static checks; ${path.relative(root, installed.log)})`, code: 0, seconds: installed.seconds });
  if (rebuilt) results.push({ name: 'native modules (npm rebuild, beside the static checks and unit tests; out/bootstrap/npm-rebuild.log)', ...rebuilt });
  const cluster = await clusterReady;
  if (cluster?.skipped) {
    pgNote = `!!! PostgreSQL pass SKIPPED: ${cluster.skipped} !!!`;
    say(pgNote);
  }
  const onPostgres = cluster && !cluster.skipped;
  const projects = [...(both || testMatches ? ['integration', 'integration-own-process'] : []), ...(onPostgres ? ['integration-pg'] : [])];
  try {
    if (projects.length) {
      const name = onPostgres ? `tests on SQLite, and ${pgFiles.length} files again on PostgreSQL` : 'tests on SQLite';
      const env = onPostgres ? { ...sqliteEnv, BROWSERDECK_PG_PASS_URL: cluster.url } : sqliteEnv;
      await vitest(`${name} (vitest --project ${projects.join(' --project ')})`, ['run', ...projects.flatMap((p) => ['--project', p]), ...args], env);
    }
  } finally {
    if (onPostgres) cluster.stop();
  }

  // Normally over long before: the checks take the idle time of the passes above.
  await checks;

  if (prebuild) {
    // Normally long over (the deploy tests waited for it); never leave a build running behind us.
    const { code, seconds } = await prebuild.done;
    if (code !== null) results.push({ name: 'container images (background, out/image/prebuild.log)', code, seconds });
  }
  if (!received.signal) {
    for (const l of leaks) say(`left behind in the private TMPDIR by ${l}`);
    results.push({ name: 'nothing left behind in TMPDIR', code: leaks.length ? 1 : 0, seconds: 0 });
  }
  const total = (Date.now() - t0) / 1000;
  say('── summary');
  for (const r of results) say(`${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.name}  (${r.seconds.toFixed(1)} s)`);
  for (const l of slowest) say(l);
  if (failures.length) say('failed tests —');
  for (const l of failures) say(l);
  if (pgNote) say(pgNote);
  say(`total ${total.toFixed(1)} s`);
  if (received.signal) {
    say(`interrupted by ${received.signal}`);
    return received.signal === 'SIGINT' ? 130 : 143;
  }
  return results.every((r) => r.code === 0) ? 0 : 1;
}
