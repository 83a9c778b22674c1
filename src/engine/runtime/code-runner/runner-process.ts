/**
 * One long-lived runner child of a session (the REPL, the WebMCP tool runner): launched in the
 * session's jail (runner-launch.ts), answering `webmcp.*` requests for its session
 * (through `RunnerServices`, runner-services.ts), ready once it says so. The owner keeps at most one and ends it with
 * `endGroup` (process-group.ts); the child's whole group also goes when it exits on its own, or
 * when it sends the engine something other than `messages` (sandbox/runner-channel.ts).
 */
import type { ChildProcess } from 'node:child_process';
import type { TSchema } from '@sinclair/typebox';
import type { SessionHandle } from '../session/session-handle.js';
import type { RunnerChannel } from '../sandbox/runner-channel.js';
import { endGroup } from './process-group.js';
import { buildRunnerLaunch, spawnRunner, type RunnerScript } from './runner-launch.js';
import type { RunnerServices } from './runner-services.js';

const STARTUP_TIMEOUT_MS = 60_000;

export interface RunnerProcess<S extends TSchema> {
  child: ChildProcess;
  channel: RunnerChannel<S>;
  /** Resolves on the child's `{type:'ready'}`; rejects when it exits, fails or stays silent first. */
  ready: Promise<void>;
}

/**
 * Starts `script` for `handle`'s session, marked `marker` (its title inside the jail), checking
 * what it sends against `messages` (`what` names it in errors). `ended`: whether the owner ended
 * meanwhile (session end, engine stop) — nothing would end a process started then, so it throws
 * instead. `onExit` runs once the child has exited.
 */
export async function startRunnerProcess<S extends TSchema>(
  handle: SessionHandle,
  opts: {
    marker: string;
    services: RunnerServices;
    bwrap: string | null;
    script: RunnerScript;
    messages: S;
    what: string;
    ended: () => boolean;
    onExit: () => void;
  },
): Promise<RunnerProcess<S>> {
  const { wsUrl } = await handle.ready();
  const launch = await buildRunnerLaunch(handle, opts.marker, wsUrl, opts.services.hide, opts.bwrap, opts.script);
  if (opts.ended()) throw new Error('the session ended');
  const { child, channel } = spawnRunner(launch, opts.messages, opts.what);
  opts.services.serveWebMcp(channel, handle);
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${STARTUP_TIMEOUT_MS / 1000} s`)), STARTUP_TIMEOUT_MS);
    const off = channel.on((m: unknown) => {
      if ((m as { type?: unknown }).type !== 'ready') return;
      clearTimeout(timer);
      off();
      resolve();
    });
    child.once('exit', (code, signal) => (clearTimeout(timer), reject(new Error(channel.failure ?? `exited (${signal ?? code})`))));
    child.once('error', (err) => (clearTimeout(timer), reject(err)));
  });
  ready.catch(() => {});
  child.once(
    'exit',
    channel.guard(() => {
      void endGroup(child);
      opts.onExit();
    }),
  );
  return { child, channel, ready };
}
