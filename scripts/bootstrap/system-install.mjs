/**
 * `npm test` on a fresh machine: the system packages (Chromium, ffmpeg, PostgreSQL, …) and the
 * container tools install in the background while `npm ci` and the static checks run, because
 * those need none of them. apt's unpacking keeps one core busy for about two minutes on a fresh
 * Debian machine, as `npm ci` does compiling the native modules: one after the other, each left a
 * core idle.
 * apt's output goes to `out/bootstrap/apt.log` (it would otherwise interleave with the checks');
 * the lines saying what is installed, and any failure, still reach the terminal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureContainerTools } from './container-tools.mjs';
import { ensureSystemPackages } from './system-packages.mjs';

/** Resolves with `{ seconds, log }` once both installs are over (`log` null when apt had nothing to do). */
export function startSystemInstall(root) {
  const dir = path.join(root, 'out', 'bootstrap');
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, 'apt.log');
  const t0 = Date.now();
  return (async () => {
    const fd = fs.openSync(log, 'w');
    try {
      const stdio = ['ignore', fd, fd];
      await ensureSystemPackages({ needPostgres: true, stdio });
      // The deploy tests (test/deploy/) build and run the OCI image with podman.
      await ensureContainerTools({ stdio });
    } finally {
      fs.closeSync(fd);
    }
    return { seconds: (Date.now() - t0) / 1000, log: fs.statSync(log).size ? log : null };
  })();
}
