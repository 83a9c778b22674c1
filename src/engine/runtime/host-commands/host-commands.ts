/**
 * The forks each session costs the engine — its disk's `cp`, `mount`, `umount`, and every launch
 * of its browser's jail (`start`) — made by a small helper process (host-command-child.mjs)
 * instead of the engine.
 * Node forks the whole engine for every `execFile`, and the fork copies the page tables of its
 * heap on the event loop's thread: 20–30 ms per command under a CPU profile of
 * `npm run bench:lifecycle -- --concurrency=10` (2026-12-04, ~9 s of the engine's ~50 s of work
 * went to the session disks' three commands per session). Every API answer and CDP message of
 * every session waited behind them. The helper forks from a heap of a few MB, beside the engine.
 * The browser launches were the rest: `spawn` held the event loop 18 ms p50, 68 ms p90 and up to
 * 250 ms per launch in the same bench (113 launches), and a pool's releases, each followed by its
 * refill's launch, queued behind one another (pool release p50 74–101 ms at c10).
 *
 * One helper per engine, started at the first session's command (an engine that runs no session
 * starts none) and ended by `close()` (the engine's stop); it also exits on its own when the engine
 * dies (its IPC channel closes). After `close`, or if the helper cannot start, commands run the old
 * way, from the engine. A helper that does not answer within a command's timeout plus
 * ANSWER_GRACE_MS (stopped, swapped out, wedged) fails that command and is killed; the next
 * command starts a new one — a session's end must not wait on it forever. A helper that dies takes
 * the processes it started along (a jail dies with its parent; any other is killed by group here),
 * and each reports its exit, as a crash. A helper that does not say within START_ANSWER_MS whether
 * it started a process is left for the next start (which gets a new one) but not killed — the
 * browsers it runs keep running — and a process it reports after that is killed at once.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { childNode, engineAsset } from '../assets.js';
import { killGroup } from '../chromium/process-group.js';
import { spawnDirect, type ProcessExit, type StartedProcess } from '../chromium/started-process.js';

const execFileAsync = promisify(execFile);

/** How long a start waits for the helper to say it forked (a fork takes milliseconds). */
export const START_ANSWER_MS = 10_000;

/** How long past a command's own timeout (enforced in the helper) the engine waits for the helper's answer. */
export const ANSWER_GRACE_MS = 5_000;

/** Runs `file args` forked from this process: for the few commands of a start or a recovery, and the fallback below. */
export function runDirect(file: string, args: string[], opts: { timeoutMs: number }): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(file, args, { timeout: opts.timeoutMs, encoding: 'utf8' });
}

/** What a failed command rejects with: execFile's fields, so callers read `stderr` as before. */
export interface HostCommandError extends Error {
  code?: number;
  signal?: string;
  stdout: string;
  stderr: string;
}

interface Answer {
  id: number;
  error?: { message: string; code?: number; signal?: string };
  stdout: string;
  stderr: string;
  /** For a started process: its pid, then its stderr chunks, then its exit. */
  pid?: number;
  exit?: ProcessExit;
}

/** A process the helper started (or is starting) for `start`. */
interface Started {
  child: ChildProcess;
  pid?: number;
  stderr: PassThrough;
  exit(e: ProcessExit): void;
  started(pid: number): void;
  failed(err: Error): void;
  /** Given up on (no answer in time): a pid reported later is killed. */
  abandoned?: boolean;
}

export class HostCommands {
  private child?: ChildProcess;
  private closed = false;
  private nextId = 1;

  /** `answerGraceMs`, `startAnswerMs`: ANSWER_GRACE_MS and START_ANSWER_MS unless a test shortens them. */
  constructor(
    private readonly answerGraceMs = ANSWER_GRACE_MS,
    private readonly startAnswerMs = START_ANSWER_MS,
  ) {}
  /** Commands in flight, with the helper each was sent to (a replaced helper's death fails only its own). */
  private readonly pending = new Map<number, { child: ChildProcess; resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  /** Every helper not yet exited (the current one and any a start gave up on). */
  private readonly helpers = new Set<ChildProcess>();
  /** Processes started through `start` that have not exited. */
  private readonly started = new Map<number, Started>();

  /**
   * Starts a long-running process (StartProcess) through the helper; from the engine itself when
   * there is none. Its group is its own (detached), so killGroup(pid) reaches it either way.
   */
  readonly start = (file: string, args: string[], env: NodeJS.ProcessEnv): Promise<StartedProcess> => {
    const child = this.helper();
    if (!child) return spawnDirect(file, args, env);
    const id = this.nextId++;
    return new Promise<StartedProcess>((resolve, reject) => {
      let exit!: (e: ProcessExit) => void;
      const exited = new Promise<ProcessExit>((r) => (exit = r));
      const stderr = new PassThrough({ encoding: 'utf8' });
      const late = setTimeout(() => {
        const s = this.started.get(id);
        if (!s || s.pid !== undefined) return;
        s.abandoned = true;
        if (this.child === child) this.child = undefined;
        reject(new Error(`the host command helper did not start ${file} within ${this.startAnswerMs} ms`));
      }, this.startAnswerMs);
      const started = (pid: number) => {
        clearTimeout(late);
        resolve({ pid, stderr, exited });
      };
      const failed = (err: Error) => {
        clearTimeout(late);
        reject(err);
      };
      this.started.set(id, { child, stderr, exit, started, failed });
      // Referenced while it runs, as a forked child's stderr pipe would be.
      child.channel?.ref();
      child.send({ id, start: true, file, args, env }, (err) => {
        if (err) this.endStarted(id, { code: -1, signal: null }, err);
      });
    });
  };

  /** Runs `file args` (no shell) and resolves with its output; rejects like execFile. */
  async run(file: string, args: string[], opts: { timeoutMs: number }): Promise<{ stdout: string; stderr: string }> {
    const child = this.helper();
    if (!child) return runDirect(file, args, opts);
    const id = this.nextId++;
    let late: NodeJS.Timeout | undefined;
    const answer = await new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { child, resolve, reject });
      // Referenced while a command is in flight: the answer must come even if nothing else runs.
      child.channel?.ref();
      child.send({ id, file, args, timeoutMs: opts.timeoutMs }, (err) => {
        if (err) this.settle(child, id)?.reject(err);
      });
      late = setTimeout(() => {
        this.settle(child, id)?.reject(new Error(`the host command helper did not answer ${file} within ${opts.timeoutMs + this.answerGraceMs} ms`));
        // Whatever it is stuck on, it answers nothing else either: the next command gets a new one.
        if (this.child === child) this.child = undefined;
        child.kill('SIGKILL');
      }, opts.timeoutMs + this.answerGraceMs);
    }).finally(() => clearTimeout(late));
    if (!answer.error) return { stdout: answer.stdout, stderr: answer.stderr };
    throw Object.assign(new Error(answer.error.message), {
      code: answer.error.code,
      signal: answer.error.signal,
      stdout: answer.stdout,
      stderr: answer.stderr,
    }) as HostCommandError;
  }

  /** Ends the helper (engine stop); later commands run from the engine itself. */
  close(): void {
    this.closed = true;
    this.child = undefined;
    // The current helper and any left behind by a start it did not answer.
    for (const child of this.helpers) if (child.connected) child.disconnect();
  }

  /** Takes command `id` out of the pending ones; a helper's channel stays referenced only while it has commands in flight. */
  private settle(child: ChildProcess, id: number) {
    const p = this.pending.get(id);
    if (p?.child !== child) return undefined;
    this.pending.delete(id);
    this.unrefIfIdle(child);
    return p;
  }

  private unrefIfIdle(child: ChildProcess): void {
    const busy = (m: Map<number, { child: ChildProcess }>) => [...m.values()].some((q) => q.child === child);
    if (!busy(this.pending) && !busy(this.started)) child.channel?.unref();
  }

  /** What the helper says of a started process: its pid, a chunk of its stderr, its exit, or why it could not start. */
  private onStarted(a: Answer): void {
    const s = this.started.get(a.id);
    if (!s) return;
    if (a.error) return this.endStarted(a.id, { code: -1, signal: null }, new Error(a.error.message));
    if (a.pid !== undefined) {
      s.pid = a.pid;
      // Nobody waits for it any more: it goes at once (its exit ends the entry).
      if (s.abandoned) killGroup(a.pid);
      else s.started(a.pid);
    }
    if (a.stderr) s.stderr.write(a.stderr);
    if (a.exit) this.endStarted(a.id, a.exit);
  }

  private endStarted(id: number, exit: ProcessExit, err?: Error): void {
    const s = this.started.get(id);
    if (!s) return;
    this.started.delete(id);
    s.stderr.end();
    if (s.pid === undefined) s.failed(err ?? new Error('the host command helper ended before the process started'));
    s.exit(exit);
    this.unrefIfIdle(s.child);
  }

  private helper(): ChildProcess | undefined {
    if (this.closed) return undefined;
    if (this.child) return this.child;
    const node = childNode();
    const script = engineAsset('host-commands/host-command-child.mjs');
    // A build that left the script out (missingEngineAssets) runs its commands the old way.
    if (!fs.existsSync(script)) return undefined;
    let child: ChildProcess;
    try {
      child = spawn(node.path, [script], {
        env: { ...process.env, ...node.env },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
    } catch {
      return undefined;
    }
    // Neither the helper nor its channel keeps the engine's process alive.
    child.unref();
    child.channel?.unref();
    child.on('message', (a: Answer) => (this.started.has(a.id) ? this.onStarted(a) : this.settle(child, a.id)?.resolve(a)));
    const gone = (why: string) => {
      if (this.child === child) this.child = undefined;
      this.helpers.delete(child);
      for (const [id, p] of this.pending) if (p.child === child) this.settle(child, id)?.reject(new Error(`the host command helper ${why}`));
      for (const [id, s] of this.started) {
        if (s.child !== child) continue;
        // A jail died with the helper; anything else it started goes now, by group.
        if (s.pid !== undefined) killGroup(s.pid);
        this.endStarted(id, { code: null, signal: 'SIGKILL' }, new Error(`the host command helper ${why}`));
      }
    };
    child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.on('error', (err) => gone(`failed: ${err.message}`));
    this.child = child;
    this.helpers.add(child);
    return child;
  }
}
