/**
 * The container images, built in the background from the start of `npm test`: a cold build (the
 * Debian base by debootstrap, the Chromium layer, PostgreSQL's) takes minutes, and the deploy
 * tests (test/deploy/image.test.ts, cluster.test.ts) used to run it inside the SQLite pass, where
 * it kept a vitest worker busy. Here it runs beside `npm ci` and the static checks instead, with
 * its output in `out/image/prebuild.log`, in this order:
 *
 *   1. `npm run image:postgres` (makes the shared base first; needs podman and nothing of ours, so
 *      it starts before `npm ci`, whose downloads leave a core idle for a minute or more),
 *   2. once the run's `electron-vite build` stage is done and the native modules are built (the
 *      engine image copies out/renderer and node_modules; two electron-vite builds at once would
 *      write the same files), `npm run image`.
 *
 * The deploy tests find the status file named by BROWSERDECK_IMAGE_PREBUILD, wait for it to say
 * `done`, and fail with the log's tail when the build failed (test/deploy/podman.ts). The build
 * scripts take the machine's image build lock (scripts/image/build-lock.mjs), so a build started
 * by hand meanwhile waits for this one and then finds its layers cached.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { run } from './run.mjs';

/** The variable naming the status file for the tests. */
export const PREBUILD_ENV = 'BROWSERDECK_IMAGE_PREBUILD';
/** The tests that use the images: the build starts only when the run selects one of them. */
export const DEPLOY_TESTS = ['test/deploy/image.test.ts', 'test/deploy/cluster.test.ts'];
/** The scripts, in the order they run. */
export const PREBUILD_SCRIPTS = ['scripts/image/build-postgres-image.mjs', 'scripts/image/build-image.mjs'];

/** Whether vitest's filters (substrings of the file path; none: every file) select a deploy test. */
export function selectsDeployTests(filters) {
  return !filters.length || DEPLOY_TESTS.some((f) => filters.some((x) => f.includes(x)));
}

/** The status file's content, or null when it is missing or unreadable. */
export function readPrebuildStatus(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Whether `podman info` succeeds (its output to `fd`); quiet where podman is not installed. */
function podmanRuns(fd) {
  return new Promise((resolve) => {
    const child = spawn('podman', ['info', '--format', '{{.Host.OCIRuntime.Name}}'], { stdio: ['ignore', fd, fd] });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

/**
 * Starts the builds; resolves the returned `done` with `{ code, seconds, log }` (code null when
 * podman cannot run here: the deploy tests skip then, saying why). `systemReady` (optional)
 * settles when podman has been installed. The engine's image waits until the caller hands
 * `engineInputs` a promise that settles when the run's own electron-vite build is over and the
 * native modules the image copies are built.
 */
export function startImagePrebuild(root, systemReady) {
  let engineInputs = () => {};
  const engineInputsReady = new Promise((resolve) => (engineInputs = resolve));
  const dir = path.join(root, 'out', 'image');
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, 'prebuild.log');
  const statusFile = path.join(dir, 'prebuild.json');
  const write = (status) => {
    const tmp = `${statusFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ pid: process.pid, log, scripts: PREBUILD_SCRIPTS, ...status }) + '\n');
    fs.renameSync(tmp, statusFile);
  };
  write({ state: 'running' });
  const t0 = Date.now();
  const done = (async () => {
    const fd = fs.openSync(log, 'w');
    let code = null;
    try {
      // podman's scratch files go to /var/tmp, as the deploy tests run it (test/deploy/podman.ts).
      const env = { ...process.env, TMPDIR: '/var/tmp' };
      await systemReady;
      const usable = process.platform === 'linux' && (await podmanRuns(fd));
      if (usable) {
        for (const script of PREBUILD_SCRIPTS) {
          if (script.endsWith('build-image.mjs')) await engineInputsReady;
          fs.writeSync(fd, `── node ${script}\n`);
          code = await run(process.execPath, [script], { cwd: root, env, stdio: ['ignore', fd, fd] });
          if (code !== 0) break;
        }
      } else {
        fs.writeSync(fd, 'podman cannot run here: nothing built (the deploy tests skip and say why)\n');
      }
    } catch (err) {
      fs.writeSync(fd, `${err instanceof Error ? err.stack : String(err)}\n`);
      code = 1;
    } finally {
      fs.closeSync(fd);
    }
    const seconds = (Date.now() - t0) / 1000;
    write({ state: 'done', code, seconds });
    return { code, seconds, log };
  })();
  return { env: { [PREBUILD_ENV]: statusFile }, done, engineInputs };
}
