/**
 * What session processes and Playwright executors share about bubblewrap: finding the binary,
 * checking once that it really works here (user namespaces may be disabled), and the common
 * arguments — new namespaces including the network (`--unshare-all`: only `lo` inside, so no
 * host loopback service, no other session's DevTools port and no engine port is reachable),
 * every capability dropped (root inside could otherwise unmount the masks below), the host's
 * system directories read-only with shadow files, SSH/TLS private keys and the engine's data
 * dir masked, fresh /proc and /dev, `--die-with-parent` and a cleared environment.
 * Inside, `/run/browserdeck` (a tmpfs) holds the session's CDP socket and the helper scripts;
 * see cdp-socket.ts and cdp-forwarder.mjs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { childNode } from '../assets.js';
import { own, type JailUser } from './jail-user.js';

/** Directory inside every sandbox for Browserdeck's own mounts (a tmpfs). */
export const SANDBOX_DIR = '/run/browserdeck';
/** The session's browser DevTools endpoint as seen inside a sandbox (forwarded, see cdp-forwarder.mjs). */
export const SANDBOX_CDP_PORT = 9222;
/** The session's CDP Unix socket inside a sandbox. */
export const SANDBOX_CDP_SOCKET = `${SANDBOX_DIR}/cdp.sock`;
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const MASKED_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers'];
const MASKED_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'];

let bwrapPath: string | null | undefined;
let probe: Promise<string | null> | undefined;
let probeError: string | undefined;

/** The bwrap binary on PATH, or null. `BROWSERDECK_NO_BWRAP=1` disables sandboxing. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.BROWSERDECK_NO_BWRAP === '1' || process.platform !== 'linux') return null;
  if (bwrapPath !== undefined) return bwrapPath;
  bwrapPath = null;
  for (const dir of (env.PATH ?? DEFAULT_PATH).split(':').concat(['/usr/bin', '/bin'])) {
    const candidate = path.join(dir, 'bwrap');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      bwrapPath = candidate;
      break;
    } catch {}
  }
  return bwrapPath;
}

/**
 * The bwrap binary if a sandbox with our flags actually starts here (checked once per engine
 * process: a kernel without unprivileged user namespaces, or a container whose /proc is masked,
 * makes bwrap fail at run time), else null.
 */
export function usableBwrap(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const bin = findBwrap(env);
  if (!bin) return Promise.resolve(null);
  probe ??= probeBwrap(bin).then(({ ok, error }) => {
    probeError = error;
    return ok ? bin : null;
  });
  return probe;
}

/** How many times the probe tries before it concludes that bwrap cannot start a sandbox here. */
const PROBE_ATTEMPTS = 3;
const PROBE_PAUSE_MS = 250;

/**
 * Whether `bin` starts a sandbox with our flags. A failure is tried again (PROBE_ATTEMPTS in all):
 * bwrap binds `/` recursively and then remounts every mount under it read-only, so a mount that
 * goes away in between — a container's overlay unmounted by podman on the same host — fails that
 * one start ("Unable to apply mount flags: remount …: No such file or directory"). The probe's
 * answer holds for the engine's life: one such moment at start-up must not turn the jail off
 * for good (seen in the suite: a worker's probe ran while a deploy test's container stopped, and
 * every jailed test after it in that worker failed).
 */
export async function probeBwrap(bin: string, attempts = PROBE_ATTEMPTS, pauseMs = PROBE_PAUSE_MS): Promise<{ ok: boolean; error?: string }> {
  let error = '';
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
    error = await new Promise<string>((resolve) =>
      execFile(
        bin,
        // `--proc`: every jail mounts a fresh procfs, which a container's runtime refuses while
        // its masks cover parts of /proc — a probe without it said "jail on" where no jail could start.
        ['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--', 'true'],
        { timeout: 30_000 },
        (err, _out, stderr) => resolve(err ? String(stderr || err.message).trim() || err.message : ''),
      ),
    );
    if (!error) return { ok: true };
  }
  return { ok: false, error: `${bin} does not start a sandbox here: ${error}` };
}

/** Why bubblewrap cannot be used here, or undefined when it can. */
export async function bwrapUnavailableReason(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (await usableBwrap(env)) return undefined;
  return process.platform !== 'linux'
    ? `bubblewrap does not exist on ${process.platform}`
    : env.BROWSERDECK_NO_BWRAP === '1'
      ? 'BROWSERDECK_NO_BWRAP=1'
      : (probeError ?? 'bwrap is not installed');
}

/** Why sandboxing is off (for the start-up warning), or undefined when it is on. */
export async function sandboxWarning(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const why = await bwrapUnavailableReason(env);
  if (!why) return undefined;
  return (
    `session processes and Playwright code run WITHOUT a sandbox (${why}): they share the engine's network ` +
    `(other sessions' DevTools ports, the engine's port) and processes can read every file the engine's user can`
  );
}

function under(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/**
 * The common bwrap arguments up to (not including) the caller's own mounts: namespaces, dropped
 * capabilities, the session root at `/` (read-write) when given, else an empty tmpfs root, system
 * dirs read-only with masks, `hide` (host paths, e.g. the data dir) masked when they fall under a
 * bound dir, fresh /proc and /dev, and the `/run/browserdeck` tmpfs.
 */
export async function baseSandboxArgs(opts: { root?: string; hide: string[] }): Promise<string[]> {
  const a = ['--unshare-all', '--die-with-parent', '--cap-drop', 'ALL'];
  if (opts.root) a.push('--bind', opts.root, '/');
  else a.push('--tmpfs', '/');
  const bound: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const st = await fsp.lstat(dir).catch(() => null);
    if (!st) continue;
    // /bin → usr/bin on merged-/usr systems: binding follows the link, which is what we want.
    a.push('--ro-bind', dir, dir);
    bound.push(dir);
  }
  for (const f of MASKED_FILES) if (fs.existsSync(f)) a.push('--ro-bind', '/dev/null', f);
  for (const d of MASKED_DIRS) if (fs.existsSync(d)) a.push('--tmpfs', d);
  for (const h of opts.hide) if (bound.some((b) => under(h, b)) && fs.existsSync(h)) a.push('--tmpfs', h);
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', SANDBOX_DIR);
  return a;
}

/**
 * Mounts the children's JavaScript runtime (runtime/assets.ts `childNode()`) read-only at
 * `/run/browserdeck/runtime` (its whole directory, so an Electron build brings its resources)
 * and returns the path to run inside.
 */
export function runtimeMount(args: string[]): string {
  const exe = childNode().path;
  args.push('--ro-bind', path.dirname(exe), `${SANDBOX_DIR}/runtime`);
  return `${SANDBOX_DIR}/runtime/${path.basename(exe)}`;
}

/** Environment that runtime needs (ELECTRON_RUN_AS_NODE=1 when it is Electron's binary). */
export function runtimeEnv(): Record<string, string> {
  return { ...childNode().env };
}

/**
 * How to start bwrap with options that must stay off every command line and out of bwrap's own
 * environment: the environment a client gives a jailed program (tokens, keys). As `--setenv`
 * arguments they were readable by every host user in /proc/<pid>/cmdline; as bwrap's own
 * environment, loader variables (LD_PRELOAD, LD_LIBRARY_PATH…) would act on bwrap itself, outside
 * the sandbox, as the engine's user. So they go into a 0600 file that a shell opens as fd 4,
 * deletes, and hands to bwrap (`--args 4`); bwrap starts with PATH only. `--clearenv` comes first
 * in the private options. `cleanup` removes the file should the shell never have run. With a
 * jail `user` (jail-user.ts) the file is that user's: the shell runs as it, opens and deletes it.
 */
export async function bwrapWithPrivateArgs(
  bwrap: string,
  env: Record<string, string>,
  args: string[],
  user?: JailUser,
): Promise<{ file: string; args: string[]; env: Record<string, string>; cleanup: () => Promise<void> }> {
  const privateArgs = ['--clearenv', ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v])];
  const argsFile = path.join(os.tmpdir(), `bd-bwrap-args-${randomUUID()}`);
  await fsp.writeFile(argsFile, privateArgs.map((a) => `${a}\0`).join(''), { mode: 0o600, flag: 'wx' });
  await own(user, argsFile);
  return {
    file: '/bin/sh',
    args: ['-c', 'exec 4<"$0" && rm -f "$0" && exec "$@"', argsFile, bwrap, '--args', '4', ...args],
    env: { PATH: DEFAULT_PATH },
    cleanup: () => fsp.rm(argsFile, { force: true }),
  };
}
