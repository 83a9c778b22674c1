/**
 * Forks for the engine: the fork of each command or browser is this small process's, not the
 * engine's. Forking the engine copies the page tables of its whole heap, some 20–30 ms of its event
 * loop each (host-commands.ts).
 *
 * - `{ id, file, args, timeoutMs }`: a short command (cp, mount, umount), answered
 *   `{ id, error?, stdout, stderr }` once it ends.
 * - `{ id, start: true, file, args, env }`: a long-running process in a group of its own (a
 *   session's browser jail), answered `{ id, pid }` or `{ id, error }`, then `{ id, stderr }` per
 *   chunk of its stderr and `{ id, exit: { code, signal } }` when it exits.
 *
 * It exits when the channel closes (the engine stopped or died), so it never outlives the engine,
 * and first kills the group of every process it started that still runs: a jail would die with it
 * anyway (bwrap's --die-with-parent), an unjailed browser would not.
 */
import { execFile, spawn } from 'node:child_process';

// The engine may go between the check and the write: that write's EPIPE is nobody's business.
const send = (m) => process.connected && process.send(m, () => {});

/** Pids (each its group's) of the started processes still running. */
const running = new Set();

function start(m) {
  let child;
  try {
    child = spawn(m.file, m.args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: m.env });
  } catch (err) {
    return send({ id: m.id, error: { message: err.message } });
  }
  // A program that cannot be run (ENOENT, EACCES) has no pid and reports through 'error'.
  if (!child.pid) return child.once('error', (err) => send({ id: m.id, error: { message: err.message } }));
  running.add(child.pid);
  send({ id: m.id, pid: child.pid });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (stderr) => send({ id: m.id, stderr }));
  child.once('exit', (code, signal) => {
    running.delete(child.pid);
    send({ id: m.id, exit: { code, signal } });
  });
}

process.on('message', (m) => {
  if (m.start) return start(m);
  execFile(m.file, m.args, { timeout: m.timeoutMs, maxBuffer: 1 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
    const error = err ? { message: err.message, code: typeof err.code === 'number' ? err.code : undefined, signal: err.signal ?? undefined } : undefined;
    send({ id: m.id, error, stdout: String(stdout), stderr: String(stderr) });
  });
});
process.on('disconnect', () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  process.exit(0);
});
