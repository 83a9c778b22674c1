/**
 * A long-running process in a group of its own (a session's browser jail), started either by the
 * host command helper (../host-commands/host-commands.ts: the fork is the helper's, not the engine's) or, where there
 * is none, forked from the engine (`spawnDirect`). Either way the caller gets its pid (and group),
 * its stderr as text, and its exit.
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartedProcess {
  /** Its pid, which is also its process group's id. */
  readonly pid: number;
  /** Its stderr, utf8 text. */
  readonly stderr: Readable;
  readonly exited: Promise<ProcessExit>;
}

/** Starts `file args` with exactly `env`, stdin and stdout closed; rejects when it cannot be started. */
export type StartProcess = (file: string, args: string[], env: NodeJS.ProcessEnv) => Promise<StartedProcess>;

/** Forked from this process: the fallback, and where no helper runs. */
export const spawnDirect: StartProcess = async (file, args, env) => {
  const child = spawn(file, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: -1, signal: null }));
  });
  if (!child.pid) {
    await exited;
    throw new Error(`could not start ${file}`);
  }
  child.stderr!.setEncoding('utf8');
  return { pid: child.pid, stderr: child.stderr!, exited };
};
