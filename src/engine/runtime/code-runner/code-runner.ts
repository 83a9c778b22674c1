/**
 * Runs `/playwright/execute` code outside the engine's process: each call forks a fresh
 * executor (code-runner-child.mjs) that connects to the session's browser over CDP, so user
 * code can neither block nor crash the engine, and a timeout is enforced by ending that
 * process (SIGKILL) rather than trusting the code to stop. `timeout_sec` counts from the
 * moment the code starts (after the executor connected); startup has its own bound. The child gets a minimal
 * environment (none of the engine's secrets) and the session's TMPDIR as its working
 * directory; its stdout/stderr are captured (bounded). Executors die with their session and
 * with the engine.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SessionHandle } from '../../domain/sessions/session-handle.js';

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

function childEntry(): string {
  return fileURLToPath(new URL('./code-runner-child.mjs', import.meta.url));
}

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

/** Executes `code` against the session's browser; never rejects for anything the code does. */
export async function executePlaywright(handle: SessionHandle, code: string, timeoutSec: number): Promise<ExecuteResult> {
  const { wsUrl } = await handle.ready();
  const child = fork(childEntry(), [`${RUNNER_MARKER}=${handle.id}`], {
    execArgv: [],
    cwd: handle.dirs.tmp,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: handle.dirs.tmp, TMPDIR: handle.dirs.tmp, NODE_ENV: 'production', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
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
    child.kill('SIGKILL');
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
  child.once('error', () => child.kill('SIGKILL'));
  child.send({ cdpUrl: wsUrl, code });
  const exitCode = await exited;
  clearTimeout(timer);
  set.delete(child);
  // Output pipes can still hold the last bytes when 'exit' fires.
  await Promise.all([child.stdout, child.stderr].map((s) => (s && !s.readableEnded ? new Promise((r) => s.once('close', r)) : undefined)));
  const out = { stdout: stdout(), stderr: stderr() };
  if (timedOut && !answer) return { success: false, error: `execution timed out after ${timeoutSec} s; the executor was stopped`, ...out };
  if (handle.signal.aborted && !answer) return { success: false, error: 'the session ended during execution', ...out };
  if (!answer) return { success: false, error: `the executor exited unexpectedly (exit code ${exitCode ?? 'signal'})`, ...out };
  return { ...answer, ...out };
}

function killAll(sessionId: string): void {
  for (const c of running.get(sessionId) ?? []) c.kill('SIGKILL');
  running.delete(sessionId);
}

/** Engine stop: ends every executor. */
export function killAllExecutors(): void {
  for (const id of [...running.keys()]) killAll(id);
}
