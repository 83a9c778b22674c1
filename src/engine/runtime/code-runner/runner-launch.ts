/**
 * How a Playwright executor is started. On Linux with a working bubblewrap it runs in the same
 * kind of sandbox as session processes (runtime/sandbox/bwrap.ts): own network namespace (only
 * `lo`), no capabilities, the session filesystem at `/`, system dirs read-only with the engine's
 * data dir masked, a private tmpfs TMPDIR, cleared environment. Inside, `/run/browserdeck` holds
 * read-only copies of exactly what it runs — the Node runtime, this directory, the sandbox
 * helpers and the playwright-core package — plus the session's CDP socket; the child forwards
 * 127.0.0.1:9222 to that socket and connects Playwright there, so it reaches its own session's
 * browser and nothing else. The bwrap arguments go through a pipe (`--args`), keeping host
 * paths off the command line.
 * Without bwrap the child is forked directly; where Node has the permission model
 * (`--experimental-permission`, Node 20; `--permission` later) its file reads are limited to
 * those same code directories and the session's tmp dir, and writes to that tmp dir. The
 * network stays shared in that mode (the permission model has no network rule) — documented
 * as the weaker mode.
 */
import { devtoolsEndpoint } from '../chromium/devtools-address.js';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex, Writable } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SessionHandle } from '../session/session-handle.js';
import { DEFAULT_PATH, SANDBOX_CDP_PORT, SANDBOX_CDP_SOCKET, SANDBOX_DIR, baseSandboxArgs, runtimeEnv, runtimeMount } from '../sandbox/bwrap.js';
import { sessionCdpSocket } from '../sandbox/cdp-socket.js';
import { jailUserOf, type JailUser } from '../sandbox/jail-user.js';
import { jailSpawn, type JailGroups } from '../sandbox/jail-start.js';
import { jailVisible } from '../sandbox/jail-visible.js';
import { childNode, engineAsset, engineAssetDir, unpackedPath } from '../assets.js';
import { RunnerChannel, runnerMessageLimit } from '../sandbox/runner-channel.js';
import { endGroup } from './process-group.js';
import { playwrightCodeCache } from './code-cache.js';

export interface RunnerLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The host user to start it as (the session's jail user when the engine is root). */
  user?: JailUser;
  /** NUL-separated bwrap arguments to write to fd 4, when sandboxed. */
  argsData?: Buffer;
  /** The session's memory and pids groups the jail starts in (sandbox/jail-start.ts). */
  groups?: JailGroups;
  sandboxed: boolean;
  /**
   * What the child needs besides the code: the CDP URL to use, the port to forward, playwright-core's
   * entry and the engine's V8 code cache for it (code-cache.ts), as the child sees them.
   */
  job: { cdpUrl: string; forward?: { socket: string; port: number }; playwright: string; codeCache?: string; title?: string };
}

/** Which child to start: the executor, the REPL, or the runner of CDP-backed WebMCP custom tools. */
export type RunnerScript = 'code-runner-child.mjs' | 'repl-child.mjs' | 'webmcp-tool-child.mjs';
/**
 * Node flags of every runner: `vm` scripts may `import()` (each call runs in its own context).
 * The rest trims V8's idle footprint (young generation, helper threads), since every executor's
 * process counts against its session's memory limit (1 GiB headless): an idle runner with
 * playwright-core connected took 89 MB anonymous memory, 56 MB with them; eight named executors
 * and `default` did not fit beside Chromium's tabs, and the OOM killer took renderers.
 */
export const NODE_FLAGS = [
  '--experimental-vm-modules',
  '--disable-warning=ExperimentalWarning',
  '--max-semi-space-size=2',
  '--v8-pool-size=1',
  '--single-threaded-gc',
];
const WSL_PROBES = ['/proc/sys/fs/binfmt_misc/WSLInterop', '/run/WSL'];

function playwrightDir(): string {
  // Children and bwrap read the real filesystem: a packaged app ships playwright-core unpacked.
  return unpackedPath(path.dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')));
}

function permissionFlag(): string | undefined {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  return undefined;
}

/** The browser's CDP URL as a runner reaches it: in the jail, through its forwarded port. */
export function runnerCdpUrl(wsUrl: string, sandboxed: boolean): string {
  return sandboxed ? `ws://127.0.0.1:${SANDBOX_CDP_PORT}${devtoolsEndpoint(wsUrl).path}` : wsUrl;
}

/**
 * `writable`: session paths (inside its root, e.g. `/tmp/traces`) the child may write without
 * the jail too (with the jail, the whole session root is its `/`).
 */
export async function buildRunnerLaunch(
  handle: SessionHandle,
  marker: string,
  wsUrl: string,
  hide: string[],
  bwrap: string | null,
  script: RunnerScript = 'code-runner-child.mjs',
  writable: string[] = [],
): Promise<RunnerLaunch> {
  const pw = playwrightDir();
  const pwEntry = path.join(pw, 'index.js');
  const codeCache = playwrightCodeCache(pw, NODE_FLAGS) ?? undefined;
  // Asset dirs resolved per launch: the engine sets the assets root at start (runtime/assets.ts).
  const RUNNER_DIR = engineAssetDir('code-runner');
  const SANDBOX_SRC_DIR = engineAssetDir('sandbox');
  if (!bwrap) {
    const perm = permissionFlag();
    // playwright-core probes for WSL at import time; Node 20 throws on existsSync of a denied path.
    const read = [`${RUNNER_DIR}/`, `${SANDBOX_SRC_DIR}/`, `${pw}/`, `${handle.dirs.tmp}/`, ...WSL_PROBES, ...(codeCache ? [`${codeCache}/`] : [])];
    const execArgv = perm
      ? [
          perm,
          ...read.map((r) => `--allow-fs-read=${r}`),
          `--allow-fs-write=${handle.dirs.tmp}/`,
          ...writable.map((w) => `--allow-fs-write=${path.join(handle.dirs.root, w)}/`),
        ]
      : [];
    return {
      file: childNode().path,
      args: [...NODE_FLAGS, ...execArgv, engineAsset(`code-runner/${script}` as const), marker],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: handle.dirs.tmp,
        TMPDIR: handle.dirs.tmp,
        NODE_ENV: 'production',
        NODE_OPTIONS: '',
        ...runtimeEnv(),
      },
      cwd: handle.dirs.tmp,
      sandboxed: false,
      job: { cdpUrl: runnerCdpUrl(wsUrl, false), playwright: pwEntry, codeCache },
    };
  }
  const socket = await sessionCdpSocket(handle);
  const user = jailUserOf(handle.dirs.root);
  const a = await baseSandboxArgs({ root: handle.dirs.root, hide });
  // As a jail user, inside it is still root (uid 0 mapped onto the session's own uid), as before.
  if (user) a.push('--uid', '0', '--gid', '0');
  const node = runtimeMount(a);
  const inside = {
    runner: `${SANDBOX_DIR}/code-runner`,
    sandbox: `${SANDBOX_DIR}/sandbox`,
    pw: `${SANDBOX_DIR}/node_modules/playwright-core`,
    tmp: `${SANDBOX_DIR}/tmp`,
    codeCache: `${SANDBOX_DIR}/v8-code-cache`,
  };
  a.push(
    '--ro-bind',
    jailVisible(RUNNER_DIR),
    inside.runner,
    '--ro-bind',
    jailVisible(SANDBOX_SRC_DIR),
    inside.sandbox,
    '--ro-bind',
    jailVisible(pw),
    inside.pw,
  );
  // Read-only like the code it caches: a tenant must never write what other sessions' runners run.
  if (codeCache) a.push('--ro-bind', jailVisible(codeCache), inside.codeCache);
  a.push('--ro-bind', socket, SANDBOX_CDP_SOCKET, '--tmpfs', inside.tmp, '--chdir', '/', '--clearenv');
  const env: Record<string, string> = {
    PATH: DEFAULT_PATH,
    HOME: '/',
    TMPDIR: inside.tmp,
    NODE_ENV: 'production',
    ...runtimeEnv(),
  };
  for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
  return {
    file: bwrap,
    // bwrap takes only options from --args: the command stays on its command line, the marker
    // does not (the child shows it as its title), so exactly one process carries it.
    args: ['--args', '4', '--', node, ...NODE_FLAGS, `${inside.runner}/${script}`],
    env: { PATH: DEFAULT_PATH },
    cwd: '/',
    argsData: Buffer.from(a.map((x) => `${x}\0`).join('')),
    user,
    groups: handle.jailGroups,
    sandboxed: true,
    job: {
      cdpUrl: runnerCdpUrl(wsUrl, true),
      forward: { socket: SANDBOX_CDP_SOCKET, port: SANDBOX_CDP_PORT },
      playwright: `${inside.pw}/index.js`,
      codeCache: codeCache && inside.codeCache,
      title: `node ${marker}`,
    },
  };
}

/** A started runner: its process and its channel (sandbox/runner-channel.ts). */
export interface SpawnedRunner<S extends TSchema> {
  child: ChildProcess;
  channel: RunnerChannel<S>;
}

/**
 * Starts a runner (an executor, the REPL, the tool runner) from its launch and sends it the
 * `init` job: as the session's jail user when the engine is root (sandbox/jail-user.ts), in its
 * own process group (the sandbox's wrappers and everything the code starts go with one kill,
 * process-group.ts), with its channel at fd 3 — a plain pipe of length-prefixed JSON that the
 * engine checks against `messages` (sandbox/runner-channel.ts); `what` names the runner in the
 * error when it sends anything else. The code's output reaches the engine through its console
 * over the channel; anything written to the raw fds is dropped. A spawn error ends the group.
 */
export function spawnRunner<S extends TSchema>(launch: RunnerLaunch, messages: S, what: string): SpawnedRunner<S> {
  // Jailed: a root shell closes every other inherited fd, joins the session's groups and execs
  // setpriv → bwrap (fds 3 and 4, the stdio below, pass through the execs).
  const run = launch.sandboxed ? jailSpawn(launch.user, launch.groups, launch, 5) : { file: launch.file, args: launch.args, as: {} };
  const child = spawn(run.file, run.args, {
    ...run.as,
    cwd: launch.cwd,
    env: launch.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', launch.argsData ? 'pipe' : 'ignore'],
  });
  const channel = new RunnerChannel(child.stdio[3] as Duplex, messages, { what, stop: () => void endGroup(child) });
  if (launch.argsData) {
    const args = child.stdio[4] as Writable;
    // bwrap gone before reading them (a failed spawn): its exit tells the owner.
    args.on('error', () => {});
    args.end(launch.argsData);
  }
  for (const out of [child.stdout, child.stderr]) {
    out?.on('error', () => {});
    out?.resume();
  }
  child.on('error', () => void endGroup(child));
  channel.send({ type: 'init', ...launch.job, limit: runnerMessageLimit() });
  return { child, channel };
}
