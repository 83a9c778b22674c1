/**
 * The browser jail: how a session's Chromium is started inside bubblewrap so that it sees the
 * same world a session process does (runtime/sandbox/bwrap.ts) and nothing more:
 *  - the session root read-write at `/` (so `/tmp/downloads` in the browser is `/tmp/downloads`
 *    in the fs API), the host's system dirs read-only on top, shadow files, SSH/TLS keys and the
 *    engine's data dir masked, other sessions and `/root`, `/home` of the host simply absent;
 *  - its user-data-dir, TMPDIR, unpacked extensions and managed policies under
 *    `/run/browserdeck/…` (private dirs of the session, outside its filesystem);
 *  - new user, pid, ipc, uts, cgroup and network namespaces, every capability dropped, uid 1000
 *    inside — so Chromium's own (namespace) sandbox stays on instead of `--no-sandbox`;
 *  - private /proc, /dev and /dev/shm; `--die-with-parent`: the jail dies with the engine, even
 *    after `kill -9`;
 *  - its own network namespace: DevTools listens on the jail's loopback and is reached only
 *    through a Unix socket (jail-helper-launch.ts), and all traffic leaves through the engine's egress
 *    proxy (`--proxy-server` to the helper), where the egress policy is enforced.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PATH, SANDBOX_DIR, baseSandboxArgs } from './bwrap.js';
import { besideJailHelper } from './jail-helper-launch.js';

export const JAIL_USER_DATA = `${SANDBOX_DIR}/user-data`;
export const JAIL_TMP = `${SANDBOX_DIR}/tmp`;
export const JAIL_EXTENSIONS = `${SANDBOX_DIR}/extensions`;
export const JAIL_SOCK_DIR = `${SANDBOX_DIR}/sock`;
const JAIL_EGRESS_SOCKET = `${SANDBOX_DIR}/egress.sock`;
/** Inside the jail's own network namespace, so the same ports serve every session. */
export const JAIL_DEVTOOLS_PORT = 9222;
export const JAIL_EGRESS_PORT = 3128;
export const JAIL_HOME = '/home/kernel';
const JAIL_UID = '1000';
/** Where Debian's Chromium and Google Chrome read mandatory policies. */
const POLICY_DIRS = ['/etc/chromium/policies/managed', '/etc/opt/chrome/policies/managed'];
const SYSTEM_PREFIXES = ['/usr/', '/opt/', '/bin/', '/sbin/', '/lib/', '/lib64/'];

export interface BrowserJailSpec {
  bwrap: string;
  /** Session filesystem root (host), read-write at `/`. */
  root: string;
  userData: string;
  tmp: string;
  /** Private host dir where the helper creates `devtools.sock` (read-write in the jail). */
  sockDir: string;
  /** Host Unix socket of the session's egress proxy. */
  egressSocket: string;
  extensionsDir?: string;
  /** Host dir with the session's managed policy JSON, shown where Chromium reads policies. */
  policyDir?: string;
  /** Host paths to mask when they fall under a bound system dir (the data dir). */
  hide: string[];
  /** Headful: the X display (`:N`) of a jailed Xvfb, whose socket dir `x11Dir` is bound in. */
  display?: string;
  x11Dir?: string;
  executable: string;
  args: string[];
  /** Extra environment for Chromium (nothing of the engine's own environment goes in). */
  env?: Record<string, string>;
  /** Join the network namespace bwrap is started in (an online one, online-netns.ts) instead of making one. */
  sharedNet?: boolean;
}

/** Chromium flags that only make sense inside the jail (DevTools port, the way out). */
export function jailChromiumArgs(): string[] {
  return [
    `--remote-debugging-port=${JAIL_DEVTOOLS_PORT}`,
    `--proxy-server=http://127.0.0.1:${JAIL_EGRESS_PORT}`,
    // Loopback goes through the proxy too: the jail's own loopback holds only DevTools.
    '--proxy-bypass-list=<-loopback>',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
  ];
}

/** Jail paths for host paths under the session's private dirs (user-data, extensions). */
export function jailPathOf(hostPath: string, hostDir: string, jailDir: string): string {
  const rel = path.relative(hostDir, hostPath);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`${hostPath} is not under ${hostDir}`);
  return rel ? path.posix.join(jailDir, ...rel.split(path.sep)) : jailDir;
}

/** Creates what the jail expects to exist in the session root (mount points, home). */
export async function prepareJailRoot(root: string): Promise<void> {
  await fs.promises.mkdir(path.join(root, 'tmp'), { recursive: true });
  await fs.promises.chmod(path.join(root, 'tmp'), 0o1777);
  await fs.promises.mkdir(path.join(root, JAIL_HOME), { recursive: true });
}

/**
 * Mounts the session's policy dir at `target` inside the read-only `/etc`. Missing directories
 * cannot be created there, so the deepest existing one below `/etc` becomes a tmpfs holding
 * read-only binds of its host entries (Debian's `/etc/chromium/master_preferences` stays) and
 * the new path. Nothing when not even the first level below `/etc` exists.
 */
export function policyMount(policyDir: string, target: string): string[] {
  let existing = path.dirname(target);
  while (existing !== '/etc' && !fs.existsSync(existing)) existing = path.dirname(existing);
  if (existing === '/etc') return [];
  if (existing === target) return ['--ro-bind', policyDir, target];
  const a = ['--tmpfs', existing];
  for (const entry of fs.readdirSync(existing)) a.push('--ro-bind', path.join(existing, entry), path.join(existing, entry));
  a.push('--ro-bind', policyDir, target);
  return a;
}

export async function browserJailCommand(spec: BrowserJailSpec): Promise<{ file: string; args: string[] }> {
  const a = await baseSandboxArgs({ root: spec.root, hide: spec.hide });
  if (spec.sharedNet) a.push('--share-net');
  a.push('--new-session', '--uid', JAIL_UID, '--gid', JAIL_UID, '--tmpfs', '/dev/shm');
  // Tests simulate a kernel that refuses nested user namespaces (Chromium's sandbox needs them).
  if (process.env.BROWSERDECK_JAIL_NO_NESTED_USERNS === '1') a.push('--unshare-user', '--disable-userns');
  // The system's font cache: without it fontconfig rebuilds one in every new session's home
  // (~200 ms of each cold start).
  a.push('--ro-bind-try', '/var/cache/fontconfig', '/var/cache/fontconfig');
  a.push('--bind', spec.userData, JAIL_USER_DATA, '--bind', spec.tmp, JAIL_TMP, '--bind', spec.sockDir, JAIL_SOCK_DIR);
  a.push('--ro-bind', spec.egressSocket, JAIL_EGRESS_SOCKET);
  if (spec.extensionsDir && fs.existsSync(spec.extensionsDir)) a.push('--ro-bind', spec.extensionsDir, JAIL_EXTENSIONS);
  if (spec.policyDir) for (const d of POLICY_DIRS) a.push(...policyMount(spec.policyDir, d));
  if (spec.x11Dir) a.push('--ro-bind', spec.x11Dir, '/tmp/.X11-unix');
  // A browser installed outside the system dirs (e.g. under a home dir) comes in read-only.
  const real = fs.realpathSync(spec.executable);
  if (!SYSTEM_PREFIXES.some((p) => real.startsWith(p))) a.push('--ro-bind', path.dirname(real), path.dirname(real));
  a.push('--chdir', JAIL_HOME, '--clearenv');
  const env: Record<string, string> = {
    PATH: DEFAULT_PATH,
    HOME: JAIL_HOME,
    TMPDIR: JAIL_TMP,
    LANG: process.env.LANG ?? 'C.UTF-8',
    ...(spec.display ? { DISPLAY: spec.display } : {}),
    ...spec.env,
  };
  for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
  // The doors and Chromium start together; the engine waits until both are ready.
  besideJailHelper(a, { sockDir: JAIL_SOCK_DIR, inboundPort: JAIL_DEVTOOLS_PORT, outboundPort: JAIL_EGRESS_PORT, outboundSocket: JAIL_EGRESS_SOCKET }, [
    spec.executable,
    ...spec.args,
  ]);
  return { file: spec.bwrap, args: a };
}
