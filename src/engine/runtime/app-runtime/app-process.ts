/**
 * Runs app code outside the engine: each deployment check and each invocation forks a fresh
 * app-runner-child.mjs in its own process group (so a timeout or cancel ends the whole tree,
 * including anything the action spawned), in the deployment's directory, with exactly the
 * environment the caller builds (none of the engine's own). TypeScript entrypoints load
 * through the engine's tsx (`--import`). Packages the app does not ship resolve from the
 * engine's node_modules: NODE_PATH for CommonJS, a resolve hook for ES modules.
 */
import { appJailArgs, openAppJailNetwork, type AppJail } from './app-jail.js';
import type { AppNetwork } from './app-network.js';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { childNode, engineAsset, unpackedPath } from '../assets.js';
import { splitLines } from './line-splitter.js';

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

export interface AppProcessResult {
  answer?: RunnerAnswer;
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
      // The IPC channel is fd 3 of bwrap, handed through the jail helper to the runner.
      const launch = await appJailArgs(opts.jail, { dir: opts.cwd, writable: false, env: opts.env, modules: engineModulesDir(), net: network, ipcFd: 3 });
      cleanup = launch.cleanup;
      child = spawn(launch.file, [...launch.args, launch.node, ...execArgv, script, APP_RUNNER_MARKER], {
        ...launch.spawn,
        cwd: '/',
        env: launch.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
    } catch (err) {
      await Promise.all([network.close(), cleanup?.()]);
      throw err;
    }
  } else {
    child = fork(script, [APP_RUNNER_MARKER], {
      cwd: opts.cwd,
      // The children's runtime (in Electron its own binary run as Node), not necessarily ours.
      execPath: node.path,
      env: { ...opts.env, ...node.env },
      execArgv,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
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
  child.on('message', (m: { answer?: RunnerAnswer }) => {
    if (m?.answer) answer ??= m.answer;
  });
  child.once('error', () => kill());
  const out = splitLines(child.stdout!, (l) => opts.onLine('stdout', l));
  const err = splitLines(child.stderr!, (l) => opts.onLine('stderr', l));
  child.send(opts.job, (e) => e && kill());
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const done = (async (): Promise<AppProcessResult> => {
    const { code, signal } = await exited;
    clearTimeout(timer);
    // Whatever the app left running in its group goes with it, and so does its way out.
    killGroup(child.pid);
    await Promise.all([out, err, network?.close(), cleanup?.()]);
    return { answer, exitCode: code, exitSignal: signal, timedOut, killed };
  })();
  return { pid: child.pid, done, kill };
}
