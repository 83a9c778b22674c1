/**
 * The short host commands each session costs the engine (its disk's `cp`, `mount`, `umount`),
 * run by a small helper process (host-command-child.mjs) instead of forked from the engine.
 * Node forks the whole engine for every `execFile`, and the fork copies the page tables of its
 * heap on the event loop's thread: 20–30 ms per command under a CPU profile of
 * `npm run bench:lifecycle -- --concurrency=10` (2026-12-04, ~9 s of the engine's ~50 s of work
 * went to the session disks' three commands per session). Every API answer and CDP message of
 * every session waited behind them. The helper forks from a heap of a few MB, beside the engine.
 *
 * One helper per engine, started at the first session's command (an engine that runs no session
 * starts none) and ended by `close()` (the engine's stop); it also exits on its own when the engine dies (its IPC channel closes). After `close`,
 * or if the helper cannot start, commands run the old way, from the engine.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { childNode, engineAsset } from '../assets.js';

const execFileAsync = promisify(execFile);

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
}

export class HostCommands {
  private child?: ChildProcess;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();

  /** Runs `file args` (no shell) and resolves with its output; rejects like execFile. */
  async run(file: string, args: string[], opts: { timeoutMs: number }): Promise<{ stdout: string; stderr: string }> {
    const child = this.helper();
    if (!child) return runDirect(file, args, opts);
    const id = this.nextId++;
    const answer = await new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Referenced while a command is in flight: the answer must come even if nothing else runs.
      child.channel?.ref();
      child.send({ id, file, args, timeoutMs: opts.timeoutMs }, (err) => {
        if (!err) return;
        this.pending.delete(id);
        reject(err);
      });
    });
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
    const child = this.child;
    this.child = undefined;
    if (child?.connected) child.disconnect();
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
    child.on('message', (a: Answer) => {
      const p = this.pending.get(a.id);
      if (!p) return;
      this.pending.delete(a.id);
      // An answer keeps the channel referenced only while commands are in flight.
      if (this.pending.size === 0) child.channel?.unref();
      p.resolve(a);
    });
    const gone = (why: string) => {
      if (this.child === child) this.child = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`the host command helper ${why}`));
      }
    };
    child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.on('error', (err) => gone(`failed: ${err.message}`));
    this.child = child;
    return child;
  }
}
