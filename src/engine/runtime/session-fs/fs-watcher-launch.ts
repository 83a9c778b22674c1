/**
 * How a session's watcher process (fs-watcher-child.mjs) is started. With bubblewrap (whenever
 * session processes are jailed: `usableBwrap`) it runs in a jail of the session like theirs —
 * new namespaces (network included), no capabilities, `--die-with-parent`, the system dirs
 * read-only with the masks and the engine's data dir hidden, cleared environment — as the
 * session's host uid when the engine is root, in the session's memory group (`jailSpawn`). Its
 * `/` is an empty tmpfs; the session's files are a read-only bind of the session root at
 * `/run/browserdeck/fsroot`, the only tree it walks, without the system mounts a session process
 * sees over its `/`. So whatever a link says, resolving it can reach nothing but the session's
 * files and the system dirs every session sees: never the data dir, another session, or a host
 * file. Its inotify watches are the session uid's (`max_user_watches` is per user: a session
 * hitting it hurts no other session and not the engine), counted against the session's budget.
 * Without bubblewrap (non-Linux, BROWSERDECK_NO_BWRAP) the same script runs as a plain child
 * (as the session's jail user when there is one), walking by descriptors with O_NOFOLLOW where
 * /proc exists. Either way nothing of the walk runs on the engine's event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { SessionHandle } from '../session/session-handle.js';
import { DEFAULT_PATH, SANDBOX_DIR, baseSandboxArgs, runtimeEnv, runtimeMount } from '../sandbox/bwrap.js';
import { jailUserOf, type JailUser } from '../sandbox/jail-user.js';
import { jailSpawn, type JailGroups } from '../sandbox/jail-start.js';
import { bindEngineAsset } from '../sandbox/jail-visible.js';
import { childNode, engineAsset } from '../assets.js';

const SCRIPT = 'session-fs/fs-watcher-child.mjs';
/** Where the session's files are inside the watcher's jail. */
export const WATCHER_FS_ROOT = `${SANDBOX_DIR}/fsroot`;

export interface WatcherLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  user?: JailUser;
  /** The session's memory and pids groups (or RLIMIT_NPROC), like every jail of it. */
  groups?: JailGroups;
  /** NUL-separated bwrap arguments for fd 4, when jailed. */
  argsData?: Buffer;
  jailed: boolean;
}

function jailUserOrNone(root: string): JailUser | undefined {
  try {
    return jailUserOf(root);
  } catch {
    return undefined;
  }
}

export async function buildWatcherLaunch(handle: SessionHandle, budget: number, hide: string[], bwrap: string | null): Promise<WatcherLaunch> {
  const root = handle.dirs.root;
  if (!bwrap) {
    return {
      file: childNode().path,
      args: [engineAsset(SCRIPT), root, String(budget)],
      env: { PATH: DEFAULT_PATH, ...runtimeEnv() },
      user: jailUserOrNone(root),
      jailed: false,
    };
  }
  const user = jailUserOf(root);
  const a = await baseSandboxArgs({ hide });
  const node = runtimeMount(a);
  bindEngineAsset(a, SCRIPT);
  a.push('--ro-bind', root, WATCHER_FS_ROOT, '--chdir', '/', '--clearenv');
  for (const [k, v] of Object.entries({ PATH: DEFAULT_PATH, ...runtimeEnv() })) a.push('--setenv', k, v);
  return {
    file: bwrap,
    args: ['--args', '4', '--', node, `${SANDBOX_DIR}/fs-watcher-child.mjs`, WATCHER_FS_ROOT, String(budget)],
    env: { PATH: DEFAULT_PATH },
    user,
    groups: handle.jailGroups,
    argsData: Buffer.from(a.map((x) => `${x}\0`).join('')),
    jailed: true,
  };
}

/** Starts the watcher in its own process group (one kill ends bwrap and all below), on pipes. */
export function spawnWatcher(launch: WatcherLaunch): ChildProcess {
  // fds 3 and 4 (the bwrap arguments) pass; every other inherited fd is closed (sandbox/jail-start.ts).
  // Unjailed without a jail user (a desktop engine, macOS): a plain child of the engine.
  const run = launch.jailed || launch.user ? jailSpawn(launch.user, launch.groups, launch, 5) : { file: launch.file, args: launch.args, as: {} };
  const child = spawn(run.file, run.args, {
    ...run.as,
    cwd: '/',
    env: launch.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', 'ignore', launch.argsData ? 'pipe' : 'ignore'],
  });
  if (launch.argsData) (child.stdio[4] as NodeJS.WritableStream).end(launch.argsData);
  child.stderr?.resume();
  return child;
}
