/**
 * Runs app code outside the engine: each deployment check and each invocation forks a fresh
 * app-runner-child.mjs in its own process group (so a timeout or cancel ends the whole tree,
 * including anything the action spawned), in the deployment's directory, with exactly the
 * environment the caller builds (none of the engine's own). TypeScript entrypoints load
 * through the engine's tsx (`--import`). Packages the app does not ship resolve from the
 * engine's node_modules: NODE_PATH for CommonJS, a resolve hook for ES modules. The job goes to
 * the child, and its answer comes back, over a plain pipe at fd 3 of length-prefixed JSON
 * (sandbox/runner-channel.ts) — not Node's IPC, whose protocol the app's code could speak to the
 * engine: anything but one well-formed answer ends the process (`channelError`).
 */
import { appJailArgs, openAppJailNetwork, type AppJail } from './app-jail.js';
import type { AppNetwork } from './app-network.js';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { childNode, engineAsset, unpackedPath } from '../assets.js';
import { splitLines } from './line-splitter.js';
import { RunnerChannel, runnerMessageLimit } from '../sandbox/runner-channel.js';
import { CHANNEL_FD } from '../sandbox/frame-channel.mjs';

/** Marks app processes on their command line (operators and tests can find them). */
export const APP_RUNNER_MARKER = '--browserdeck-app-runner';

export type RunnerJob =
  | { mode: 'discover'; entry: string }
  | { mode: 'invoke'; entry: string; app: string; action: string; payload: string | null; context: Record<string, unknown> };

export interface RunnerAnswer {
  ok: boolean;
  phase?: 'load' | 'lookup' | 'action';
  error?: string;
  output?: string;
  apps?: Array<{ name: string; actions: Array<{ name: string }> }>;
}

/** The one message an app process sends (app-runner-child.mjs). */
const AppRunnerMessage = Type.Object({
  answer: Type.Object({
    ok: Type.Boolean(),
    phase: Type.Optional(Type.Union([Type.Literal('load'), Type.Literal('lookup'), Type.Literal('action')])),
    error: Type.Optional(Type.String()),
    output: Type.Optional(Type.String()),
    apps: Type.Optional(
      Type.Array(Type.Object({ name: Type.String({ maxLength: 1024 }), actions: Type.Array(Type.Object({ name: Type.String({ maxLength: 1024 }) })) })),
    ),
  }),
});

export interface AppProcessResult {
  answer?: RunnerAnswer;
  /** Why the engine ended the process for what it sent over its channel (then `answer` is unset). */
  channelError?: string;
  exitCode: number | null;
  exitSignal: string | null;
  timedOut: boolean;
  killed: boolean;
}

export interface AppProcess {
  readonly pid: number | undefined;
  readonly done: Promise<AppProcessResult>;
  /** Ends the process and everything in its process group. */
  kill(): void;
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);
const localRequire = createRequire(import.meta.url);

/** The engine's node_modules directory (where it finds playwright-core). */
export function engineModulesDir(): string {
  let dir = unpackedPath(path.dirname(localRequire.resolve('playwright-core')));
  while (path.basename(dir) !== 'node_modules' && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** The environment every app process gets before the deployment's own variables. */
export function baseAppEnv(home: string): Record<string, string> {
  const modules = engineModulesDir();
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    NODE_ENV: 'production',
    NODE_OPTIONS: '',
    NODE_PATH: modules,
    BROWSERDECK_APP_FALLBACK_PARENT: pathToFileURL(path.join(path.dirname(modules), '__browserdeck_app_fallback__.js')).href,
  };
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {}
}

/** `jail`: run in the app jail (app-jail.ts); without it the process runs on the host. */
export async function startAppProcess(opts: {
  cwd: string;
  env: Record<string, string>;
  job: RunnerJob;
  timeoutMs: number;
  onLine: (stream: 'stdout' | 'stderr', line: string) => void;
  jail?: AppJail;
}): Promise<AppProcess> {
  const execArgv = TS_EXTENSIONS.has(path.extname(opts.job.entry)) ? ['--import', pathToFileURL(localRequire.resolve('tsx')).href] : [];
  const node = childNode();
  const script = engineAsset('app-runtime/app-runner-child.mjs');
  let child: ChildProcess;
  let network: AppNetwork | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  if (opts.jail) {
    network = await openAppJailNetwork(opts.jail);
    try {
      // The channel is fd 3 of bwrap, handed through the jail helper to the runner.
      const launch = await appJailArgs(opts.jail, {
        dir: opts.cwd,
        writable: false,
        env: opts.env,
        modules: engineModulesDir(),
        net: network,
        channelFd: CHANNEL_FD,
      });
      cleanup = launch.cleanup;
      child = spawn(launch.file, [...launch.args, launch.node, ...execArgv, script, APP_RUNNER_MARKER], {
        ...launch.spawn,
        cwd: '/',
        env: launch.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      await Promise.all([network.close(), cleanup?.()]);
      throw err;
    }
  } else {
    // The children's runtime (in Electron its own binary run as Node), not necessarily ours.
    child = spawn(node.path, [...execArgv, script, APP_RUNNER_MARKER], {
      cwd: opts.cwd,
      env: { ...opts.env, ...node.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
  }
  let answer: RunnerAnswer | undefined;
  let timedOut = false;
  let killed = false;
  const kill = (): void => {
    killed = true;
    killGroup(child.pid);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, opts.timeoutMs);
  const channel = new RunnerChannel(child.stdio[CHANNEL_FD] as Duplex, AppRunnerMessage, { what: 'the app process', stop: () => killGroup(child.pid) });
  channel.on((m) => {
    const a = m.answer;
    answer ??= {
      ok: a.ok,
      ...(a.phase !== undefined && { phase: a.phase }),
      ...(a.error !== undefined && { error: a.error }),
      ...(a.output !== undefined && { output: a.output }),
      ...(a.apps !== undefined && { apps: a.apps.map((x) => ({ name: x.name, actions: x.actions.map((y) => ({ name: y.name })) })) }),
    };
  });
  child.once('error', () => kill());
  for (const s of [child.stdout, child.stderr]) s?.on('error', () => {});
  // A handler of the caller throwing on a line ends this process, not the engine.
  const out = splitLines(
    child.stdout!,
    channel.guard((l: string) => opts.onLine('stdout', l)),
  );
  const err = splitLines(
    child.stderr!,
    channel.guard((l: string) => opts.onLine('stderr', l)),
  );
  channel.send({ ...opts.job, limit: runnerMessageLimit() });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const done = (async (): Promise<AppProcessResult> => {
    const { code, signal } = await exited;
    clearTimeout(timer);
    // Whatever the app left running in its group goes with it, and so does its way out.
    killGroup(child.pid);
    await Promise.all([out, err, network?.close(), cleanup?.()]);
    if (channel.failure) return { channelError: channel.failure, exitCode: code, exitSignal: signal, timedOut, killed };
    return { answer, exitCode: code, exitSignal: signal, timedOut, killed };
  })();
  return { pid: child.pid, done, kill };
}
