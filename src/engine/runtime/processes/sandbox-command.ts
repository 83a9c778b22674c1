/**
 * How a session process is started so that it sees the session filesystem as its own `/`.
 * On Linux with bubblewrap (`bwrap`) the command runs in new namespaces (`--unshare-all`, network
 * shared so tools like curl work) with the session root bound read-write at `/`, the host's
 * /usr, /bin, /lib*, /sbin and /etc read-only on top (shadow files and SSH/TLS private keys
 * masked, the engine's data dir masked if it lies under them), a fresh /proc and /dev, and
 * `--die-with-parent`. It cannot see the engine's data dir or another session's files.
 * The bind mounts need mount points, so the first sandboxed process leaves empty `usr`, `bin`,
 * `lib`, `lib64`, `sbin`, `etc`, `proc`, `dev` directories (and a `tmp`) in the session root,
 * much like a fresh Linux machine.
 * Without bwrap (macOS, Windows, Linux without it) the command runs directly with its cwd in
 * the session root: weaker isolation, documented in the README — it can read whatever the
 * engine's user can.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

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
}

export interface LaunchSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  sandboxed: boolean;
}

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const MASKED_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers'];
const MASKED_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'];
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

let bwrapPath: string | null | undefined;

/** The bwrap binary, or null when processes cannot be sandboxed here. `BROWSERDECK_NO_BWRAP=1` disables it. */
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

/** The environment a session process starts with: nothing of the engine's own (it holds secrets). */
export function baseEnv(extra: Record<string, string>, tty: boolean): Record<string, string> {
  return { PATH: DEFAULT_PATH, HOME: '/', TMPDIR: '/tmp', LANG: 'C.UTF-8', ...(tty ? { TERM: 'xterm-256color' } : {}), ...extra };
}

function under(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

export async function buildLaunch(spec: SandboxSpec, bwrap: string | null): Promise<LaunchSpec> {
  if (!bwrap) return { file: spec.command, args: spec.args, cwd: spec.cwdHost, env: spec.env, sandboxed: false };
  await fsp.mkdir(path.join(spec.root, 'tmp'), { recursive: true, mode: 0o1777 }).catch(() => {});
  const a = ['--unshare-all', '--share-net', '--die-with-parent', '--bind', spec.root, '/'];
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
  for (const h of spec.hide) if (bound.some((b) => under(h, b)) && fs.existsSync(h)) a.push('--tmpfs', h);
  a.push('--proc', '/proc', '--dev', '/dev', '--chdir', spec.cwdVirtual, '--clearenv');
  for (const [k, v] of Object.entries(spec.env)) a.push('--setenv', k, v);
  a.push('--', spec.command, ...spec.args);
  return { file: bwrap, args: a, cwd: spec.root, env: { PATH: DEFAULT_PATH }, sandboxed: true };
}
