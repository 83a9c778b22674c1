/**
 * A private, throwaway PostgreSQL cluster for one test run: initdb into a temp dir, listen on
 * a free loopback port with the unix socket inside that dir, trust auth (loopback only), and
 * durability off (the data dies with the run). As root the server runs as the `postgres` user
 * (PostgreSQL refuses root). `stop()` shuts it down and deletes the dir; it is safe to call
 * twice and also runs from a process 'exit' hook so an error or Ctrl-C does not leave it behind.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { capture, say } from './run.mjs';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL tool, as the postgres user when we are root. */
function pgTool(binDir, asUser, tool, args) {
  const exe = path.join(binDir, tool);
  const [cmd, argv] = asUser ? ['runuser', ['-u', asUser, '--', exe, ...args]] : [exe, args];
  // cwd must be readable by the postgres user, or the tools complain about the cwd.
  return spawnSync(cmd, argv, { encoding: 'utf8', cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Starts the cluster. Resolves with `{ url, stop }`, or with `{ skipped: reason }` when this
 * machine cannot run one (no server binaries, or root without a `postgres` user).
 */
export async function startPostgresCluster(binDir) {
  if (!binDir) return { skipped: 'no PostgreSQL server binaries found (Debian: apt-get install postgresql)' };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let asUser = null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-pg-'));
  if (isRoot) {
    const uid = capture('id', ['-u', 'postgres']);
    const gid = capture('id', ['-g', 'postgres']);
    if (!uid || !gid) {
      fs.rmSync(dir, { recursive: true, force: true });
      return { skipped: 'running as root but there is no `postgres` user to run the server as' };
    }
    fs.chownSync(dir, Number(uid), Number(gid));
    asUser = 'postgres';
  }
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (fs.existsSync(path.join(data, 'postmaster.pid'))) {
      const r = pgTool(binDir, asUser, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
      if (r.status !== 0) {
        // Last resort: immediate shutdown of the postmaster named in its pid file.
        const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        try {
          if (pid > 0) process.kill(pid, 'SIGQUIT');
        } catch {}
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);

  const init = pgTool(binDir, asUser, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  if (init.status !== 0) {
    process.stderr.write(init.stderr);
    stop();
    throw new Error(`initdb failed (exit ${init.status})`);
  }
  const port = await freePort();
  const opts = [
    `-p ${port}`,
    `-k ${dir}`,
    '-h 127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  const start = pgTool(binDir, asUser, 'pg_ctl', ['-D', data, '-l', logFile, '-o', opts, '-w', '-t', '60', 'start']);
  if (start.status !== 0) {
    process.stderr.write(start.stderr + (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''));
    stop();
    throw new Error(`PostgreSQL failed to start (exit ${start.status})`);
  }
  say(`PostgreSQL ${path.basename(path.dirname(binDir))} test cluster on 127.0.0.1:${port} (${dir})`);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
}
