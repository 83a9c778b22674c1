/**
 * Child-process helpers for the bootstrap: run a command with inherited stdio, forward
 * SIGINT/SIGTERM to whichever child is running (so `npm run serve` stops the engine cleanly and
 * Ctrl-C in `npm test` stops vitest before the PostgreSQL cluster is torn down), and resolve
 * with the child's exit code instead of throwing. Builtins only: this runs before node_modules.
 */
import { spawn, spawnSync } from 'node:child_process';

/** Signals received while a child was running; the caller decides how to wind down. */
export const received = { signal: /** @type {NodeJS.Signals | null} */ (null) };

/** Children running now (the test run's static checks run two at a time). */
const running = /** @type {Set<import('node:child_process').ChildProcess>} */ (new Set());

function forward(signal) {
  received.signal ??= signal;
  // With no child running the process would otherwise ignore the signal: cleanup hooks in the
  // caller run when the next step sees `received.signal`.
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}
process.on('SIGINT', () => forward('SIGINT'));
process.on('SIGTERM', () => forward('SIGTERM'));

// Under `npm run`, npm forwards SIGTERM only to the `sh -c` it spawned, which dies without
// passing it on, orphaning us and the engine. So when npm's shell goes away, act as if the
// signal had reached us. (Only under npm: a deliberately detached direct run keeps running.)
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      forward('SIGTERM');
    }
  }, 250).unref();
}

/** Print a bootstrap line (prefixed so it stands out from tool output). */
export function say(line) {
  process.stderr.write(`[bootstrap] ${line}\n`);
}

/**
 * Runs `cmd args` to completion with inherited stdio; signals to this process go to the child.
 * Resolves with the exit code (128+n for a signal death, 127 when the program is missing).
 * `nice`: run it at that niceness (through nice(1), which execs it: every thread the program
 * starts inherits the priority, and signals still reach it).
 */
export function run(cmd, args, { nice, ...opts } = {}) {
  if (nice !== undefined) [cmd, args] = ['nice', ['-n', String(nice), cmd, ...args]];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', ...opts });
    running.add(child);
    child.on('error', (err) => {
      say(`cannot run ${cmd}: ${err.message}`);
      running.delete(child);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : signal === 'SIGKILL' ? 9 : 1));
    });
  });
}

/** Runs a short command synchronously and returns its trimmed stdout, or null on failure. */
export function capture(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  return r.status === 0 ? r.stdout.trim() : null;
}
