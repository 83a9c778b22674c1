/**
 * Runs `/playwright/execute` code outside the engine's process: each call forks a fresh
 * executor (code-runner-child.mjs) that connects to the session's browser over CDP, so user
 * code can neither block nor crash the engine, and a timeout is enforced by ending that
 * process (SIGKILL) rather than trusting the code to stop. `timeout_sec` counts from the
 * moment the code starts (after the executor connected); startup has its own bound.
 * On Linux with bubblewrap the executor runs sandboxed (runner-launch.ts): the session
 * filesystem as `/`, no engine data, its own network namespace, and only its own session's
 * browser reachable (through the session's CDP socket). The code is compiled (TypeScript
 * stripped) here first; syntax errors never start an executor. The child gets a minimal
 * environment (none of the engine's secrets); its stdout/stderr are captured (bounded).
 * Executors (their whole process group) die with their session and with the engine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { SessionHandle } from '../session/session-handle.js';
import { usableBwrap } from '../sandbox/bwrap.js';
import { compileUserCode } from './compile-user-code.js';
import { buildRunnerLaunch } from './runner-launch.js';

const OUTPUT_CAP = 1024 * 1024;
/** Marks executor processes on their command line (tests and operators can find them). */
export const RUNNER_MARKER = '--browserdeck-code-runner';

export interface ExecuteResult {
  success: boolean;
  result?: unknown;
  error?: string;
  stdout: string;
  stderr: string;
}

const running = new Map<string, Set<ChildProcess>>();

/** Longest wait for an executor to start and connect before the code's own timeout runs. */
const STARTUP_TIMEOUT_MS = 60_000;

function capture(stream: NodeJS.ReadableStream | null): () => string {
  const parts: Buffer[] = [];
  let size = 0;
  let truncated = false;
  stream?.on('data', (c: Buffer) => {
    if (size + c.length > OUTPUT_CAP) {
      truncated = true;
      c = c.subarray(0, Math.max(0, OUTPUT_CAP - size));
    }
    size += c.length;
    if (c.length) parts.push(c);
  });
  return () => Buffer.concat(parts).toString('utf8') + (truncated ? '\n[output truncated]' : '');
}

/**
 * Executes `code` against the session's browser; never rejects for anything the code does.
 * `hide`: host paths (the engine's data dir) to mask should they lie under a directory the
 * sandbox binds.
 */
export async function executePlaywright(handle: SessionHandle, code: string, timeoutSec: number, hide: string[] = []): Promise<ExecuteResult> {
  const compiled = await compileUserCode(code);
  if ('error' in compiled) return { success: false, error: compiled.error, stdout: '', stderr: '' };
  const { wsUrl } = await handle.ready();
  const launch = await buildRunnerLaunch(handle, `${RUNNER_MARKER}=${handle.id}`, wsUrl, hide, await usableBwrap());
  const child = spawn(launch.file, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    // Own process group: the sandbox's wrappers and everything the code starts go with one kill.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc', launch.argsData ? 'pipe' : 'ignore'],
    serialization: 'advanced',
  });
  if (launch.argsData) (child.stdio[4] as NodeJS.WritableStream).end(launch.argsData);
  let set = running.get(handle.id);
  if (!set) {
    running.set(handle.id, (set = new Set()));
    handle.onEnd(() => killAll(handle.id));
  }
  set.add(child);
  const stdout = capture(child.stdout);
  const stderr = capture(child.stderr);
  type Answer = { success: boolean; result?: unknown; error?: string };
  let answer: Answer | undefined;
  let timedOut = false;
  const stop = () => {
    timedOut = true;
    killGroup(child);
  };
  let timer = setTimeout(stop, STARTUP_TIMEOUT_MS);
  child.on('message', (m: { started?: boolean; answer?: Answer }) => {
    if (m.started) {
      clearTimeout(timer);
      timer = setTimeout(stop, timeoutSec * 1000);
    }
    if (m.answer) answer ??= m.answer;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ? null : code)));
  child.once('error', () => killGroup(child));
  child.send({ ...launch.job, js: compiled.js });
  const exitCode = await exited;
  clearTimeout(timer);
  set.delete(child);
  // Whatever is left of the group (the sandboxed node under bwrap, anything the code spawned) goes too.
  killGroup(child);
  await groupGone(child);
  // Output pipes can still hold the last bytes when 'exit' fires.
  await Promise.all([child.stdout, child.stderr].map((s) => (s && !s.readableEnded ? new Promise((r) => s.once('close', r)) : undefined)));
  const out = { stdout: stdout(), stderr: stderr() };
  if (timedOut && !answer) return { success: false, error: `execution timed out after ${timeoutSec} s; the executor was stopped`, ...out };
  if (handle.signal.aborted && !answer) return { success: false, error: 'the session ended during execution', ...out };
  if (!answer) return { success: false, error: `the executor exited unexpectedly (exit code ${exitCode ?? 'signal'})`, ...out };
  return { ...answer, ...out };
}

function killGroup(child: ChildProcess): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Whether a live (not zombie) process is left in the group; zombies wait for a slow host init. */
function groupAlive(pgid: number): boolean {
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z') return true;
    } catch {}
  }
  return false;
}

/** Waits (bounded) until no process of the executor's group is left running. */
async function groupGone(child: ChildProcess): Promise<void> {
  if (!child.pid) return;
  for (let i = 0; i < 200 && groupAlive(child.pid); i++) await new Promise((r) => setTimeout(r, 10));
}

function killAll(sessionId: string): void {
  for (const c of running.get(sessionId) ?? []) killGroup(c);
  running.delete(sessionId);
}

/** Engine stop: ends every executor. */
export function killAllExecutors(): void {
  for (const id of [...running.keys()]) killAll(id);
}
