/**
 * How a session process is started so that it sees the session filesystem as its own `/`.
 * On Linux with bubblewrap (`bwrap`, see runtime/sandbox/bwrap.ts) the command runs in new
 * namespaces — network included, so only `lo` exists inside: no host loopback service, no
 * other session's DevTools port, no engine port, no outside network — with every capability
 * dropped, the session root bound read-write at `/`, the host's /usr, /bin, /lib*, /sbin, /etc,
 * /opt read-only on top (shadow files and SSH/TLS private keys masked, the engine's data dir
 * masked if it lies under them), a fresh /proc and /dev, and `--die-with-parent`.
 * Its own session's browser is reachable at `http://127.0.0.1:9222` (env `CDP_URL`):
 * the command is started by cdp-exec.mjs, which forwards that port to the session's CDP Unix
 * socket (bind-mounted at /run/browserdeck/cdp.sock) before running the command.
 * The bind mounts need mount points, so the first sandboxed process leaves empty `usr`, `bin`,
 * `lib`, `lib64`, `sbin`, `etc`, `proc`, `dev`, `run` directories (and a `tmp`) in the session
 * root, much like a fresh Linux machine.
 * Without bwrap (macOS, Windows, Linux without it or without user namespaces) the command runs
 * directly with its cwd in the session root: weaker isolation, documented in docs/operate/security-model.md and
 * warned about at engine start — it can read whatever the engine's user can and reach every
 * loopback port.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  DEFAULT_PATH,
  SANDBOX_CDP_PORT,
  SANDBOX_CDP_SOCKET,
  SANDBOX_DIR,
  baseSandboxArgs,
  bwrapWithPrivateArgs,
  findBwrap,
  runtimeEnv,
  runtimeMount,
} from '../sandbox/bwrap.js';
import { jailUserOf, type JailUser } from '../sandbox/jail-user.js';
import type { JailGroups } from '../sandbox/jail-start.js';
import { bindEngineAsset } from '../sandbox/jail-visible.js';

export { findBwrap };

export interface SandboxSpec {
  /** Host path of the session root. */
  root: string;
  /** Client (virtual) cwd inside the session, already validated. */
  cwdVirtual: string;
  /** Host path of that cwd (used when not sandboxed). */
  cwdHost: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Host paths to hide from sandboxed processes when they fall under a bound system dir. */
  hide: string[];
  /** Host path of the session's CDP Unix socket (sandbox/cdp-socket.ts); the browser port is forwarded when given. */
  cdpSocket?: string;
  /** Host dir of the session's X socket (jailed headful sessions), shown at /tmp/.X11-unix. */
  x11Dir?: string;
  /** The session's memory and pids groups (sandbox/jail-start.ts). */
  groups?: JailGroups;
}

export interface LaunchSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The host user to start it as (the session's jail user when the engine is root), else the engine's. */
  user?: JailUser;
  sandboxed: boolean;
  /** How many generations below the spawned process the user's command runs (0 = it is the command). */
  commandDepth: number;
  /** Removes what the launch left on disk should it never have started (call once it has exited). */
  cleanup?: () => Promise<void>;
  /** The session's groups the process starts in (sandbox/jail-start.ts). */
  groups?: JailGroups;
}

/** The environment a session process starts with: nothing of the engine's own (it holds secrets). */
export function baseEnv(extra: Record<string, string>, tty: boolean): Record<string, string> {
  return { PATH: DEFAULT_PATH, HOME: '/', TMPDIR: '/tmp', LANG: 'C.UTF-8', ...(tty ? { TERM: 'xterm-256color' } : {}), ...extra };
}

/**
 * `CDP_URL` (and the alias `CHROME_DEVTOOLS_URL`) for a process: its session browser's HTTP
 * DevTools endpoint. Not BROWSERDECK_-prefixed: nothing named like the engine's own settings
 * is handed to a process.
 */
export function cdpEnv(httpUrl: string): Record<string, string> {
  return { CDP_URL: httpUrl, CHROME_DEVTOOLS_URL: httpUrl };
}

export async function buildLaunch(spec: SandboxSpec, bwrap: string | null): Promise<LaunchSpec> {
  if (!bwrap) return { file: spec.command, args: spec.args, cwd: spec.cwdHost, env: spec.env, sandboxed: false, commandDepth: 0 };
  await fsp.mkdir(path.join(spec.root, 'tmp'), { recursive: true, mode: 0o1777 }).catch(() => {});
  const user = jailUserOf(spec.root);
  const a = await baseSandboxArgs({ root: spec.root, hide: spec.hide });
  // As a jail user, inside it is still root (uid 0 mapped onto the session's own uid), as before.
  if (user) a.push('--uid', '0', '--gid', '0');
  if (spec.x11Dir) a.push('--ro-bind', spec.x11Dir, '/tmp/.X11-unix');
  let command = [spec.command, ...spec.args];
  let env = spec.env;
  if (spec.cdpSocket) {
    const node = runtimeMount(a);
    a.push('--ro-bind', spec.cdpSocket, SANDBOX_CDP_SOCKET);
    bindEngineAsset(a, 'sandbox/cdp-exec.mjs');
    bindEngineAsset(a, 'sandbox/cdp-forwarder.mjs');
    // The user's NODE_OPTIONS are for their command, not for the forwarder: it hands them on.
    const { NODE_OPTIONS, ...rest } = env;
    const nodeOptions = NODE_OPTIONS !== undefined ? [`--node-options=${NODE_OPTIONS}`] : [];
    command = [node, `${SANDBOX_DIR}/cdp-exec.mjs`, SANDBOX_CDP_SOCKET, String(SANDBOX_CDP_PORT), ...nodeOptions, '--', ...command];
    env = { ...cdpEnv(`http://127.0.0.1:${SANDBOX_CDP_PORT}`), ...runtimeEnv(), ...rest };
  }
  a.push('--chdir', spec.cwdVirtual);
  a.push('--', ...command);
  // sh execs bwrap → its init (pid 1 inside) → [cdp-exec →] command. The client's environment
  // reaches the command through bwrapWithPrivateArgs: on no command line, never bwrap's own.
  const launch = await bwrapWithPrivateArgs(bwrap, env, a, user);
  return {
    file: launch.file,
    args: launch.args,
    cwd: spec.root,
    env: launch.env,
    user,
    sandboxed: true,
    commandDepth: spec.cdpSocket ? 3 : 2,
    cleanup: launch.cleanup,
    groups: spec.groups,
  };
}
