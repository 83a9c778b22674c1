/**
 * A network namespace that Chromium takes for online. In a namespace holding only `lo`, Chromium
 * sees no network: pages read `navigator.onLine === false` (a PWA shows its offline banner, an
 * app may refuse to send) and each navigation's first request waits before it is sent (document
 * `sendStart` p50 67–78 ms back to back, 2.1 ms with the interface: `bench/connect-profile.ts
 * --no-raw`; the wait grows with load). What Chromium needs is one interface besides `lo` that is
 * up and has an IPv4 address (no route needed): a veth pair whose two ends both stay in the jail's
 * namespace gives it that and nothing more — no link leaves the namespace, forwarding is off in a
 * new namespace, so the jail's only ways out are still its doors (jail-helper-launch.ts).
 *
 * The namespace is made before bwrap by `unshare`, configured, and bwrap joins it (`--share-net`
 * after `--unshare-all`). Nothing in the jail can change it: bwrap's own user namespace, where
 * the jail lives with every capability dropped, is below the one that owns the network namespace.
 * - `root` engines: `unshare --net`; the namespace belongs to the host's user namespace, and the
 *   jail runs as a uid of its own (jail-user.ts, setpriv after the namespace is made).
 * - `user` (non-root) engines — the desktop app, the container image: `unshare --user
 *   --map-current-user --keep-caps --net`, a user namespace of the engine's own uid that owns the
 *   network namespace; `ip` runs with the capabilities it grants, which setpriv clears before
 *   bwrap starts (bwrap refuses to start with capabilities it was not installed with).
 * Probed once per process (the tools found, a veth made in a throwaway namespace the same way);
 * where it fails (no veth in the kernel, no `ip`, user namespaces refused), jails keep bwrap's own
 * namespace. Which namespace causes the wait: `bench/jail-netns.ts`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { DEFAULT_PATH } from './bwrap.js';
import { SETPRIV } from './jail-user.js';
import { firstExecutable, onPath } from '../find-executable.js';

/** From the system's own dirs (as socat, jail-helper-launch.ts): the spawner's PATH is not trusted. Looked up once, by the probe. */
const systemProgram = (name: string) => firstExecutable(onPath(name, { PATH: DEFAULT_PATH }));

/**
 * `ip -batch` lines: `lo` up, and a veth pair inside the namespace with a host-only address.
 * `addrgenmode none`: without it the kernel gives each end an IPv6 link-local address 1–2 s after
 * it comes up, by then Chromium is running, sees the network change and fails the requests in
 * flight with `net::ERR_NETWORK_CHANGED` (seen in CI on a session's first request).
 */
export const ONLINE_NETNS_BATCH = [
  'link set lo up',
  'link add bd0 type veth peer name bd1',
  'link set bd0 addrgenmode none',
  'link set bd1 addrgenmode none',
  'address add 10.255.255.1/32 dev bd0',
  'link set bd1 up',
  'link set bd0 up',
  '',
].join('\n');

/**
 * The shell step between `unshare --net` and the jail: configures the namespace, waits (at most
 * about a second) until the kernel reports both links up — carrier changes are applied
 * asynchronously, and one Chromium saw after starting would be a network change too —, then
 * becomes "$@". A failure (after the probe passed) leaves the browser offline, as before, rather
 * than failing its launch; `ip`'s error and a line saying so go to the browser's log.
 */
export const ONLINE_NETNS_SCRIPT = [
  `if printf '%s' "$1" | "$2" -batch -; then`,
  `  n=0; while [ $n -lt 100 ]; do case "$("$2" -o link show)" in *NO-CARRIER*|*LOWERLAYERDOWN*|*"state DOWN"*) n=$((n+1)); sleep 0.01;; *) break;; esac; done`,
  `else echo "browserdeck-jail: its network namespace stays offline" >&2; fi`,
  `shift 2; exec "$@"`,
].join('\n');

/** How jails here get an online namespace (see the top of this file). */
export type OnlineNetnsMode = 'root' | 'user';

interface Tools {
  unshare: string;
  ip: string;
  setpriv: string;
}

let found: { mode: OnlineNetnsMode; tools: Tools } | undefined;
let probed: Promise<OnlineNetnsMode | undefined> | undefined;

/** `unshare`'s options that make the namespace in `mode`. */
const unshareArgs = (mode: OnlineNetnsMode) => (mode === 'root' ? ['--net'] : ['--user', '--map-current-user', '--keep-caps', '--net']);

/**
 * Whether jails here can start in an online namespace, and how: `root` or `user` by the engine's
 * uid, once `unshare` and `ip` (and for `user`, setpriv) are found and a veth was made that way in a throwaway
 * namespace; undefined otherwise.
 */
export function onlineNetnsMode(isRoot = process.getuid?.() === 0): Promise<OnlineNetnsMode | undefined> {
  probed ??= new Promise((resolve) => {
    const mode: OnlineNetnsMode = isRoot ? 'root' : 'user';
    const unshare = systemProgram('unshare');
    const ip = systemProgram('ip');
    // The same setpriv the jail's uid switch uses (jail-user.ts); only user mode runs it (to clear capabilities).
    if (!unshare || !ip || (mode === 'user' && !fs.existsSync(SETPRIV))) return resolve(undefined);
    const child = execFile(unshare, [...unshareArgs(mode), ip, '-batch', '-'], { timeout: 10_000 }, (err) => {
      if (!err) found = { mode, tools: { unshare, ip, setpriv: SETPRIV } };
      resolve(err ? undefined : mode);
    });
    child.stdin?.end(ONLINE_NETNS_BATCH);
  });
  return probed;
}

/** Whether jails here start in an online namespace (onlineNetnsMode() found a way). */
export async function onlineNetnsAvailable(): Promise<boolean> {
  return (await onlineNetnsMode()) !== undefined;
}

/**
 * `cmd` started in a new online network namespace made as `mode` says, with the programs in
 * `tools`: in `user` mode the capabilities `ip` needed are cleared (setpriv) before `cmd` starts.
 */
export function onlineNetnsCommand(mode: OnlineNetnsMode, tools: Tools, cmd: { file: string; args: string[] }): { file: string; args: string[] } {
  const then = mode === 'root' ? [cmd.file, ...cmd.args] : [tools.setpriv, '--inh-caps=-all', '--ambient-caps=-all', '--', cmd.file, ...cmd.args];
  return {
    file: tools.unshare,
    args: [...unshareArgs(mode), '--', '/bin/sh', '-c', ONLINE_NETNS_SCRIPT, 'online-netns', ONLINE_NETNS_BATCH, tools.ip, ...then],
  };
}

/** `cmd` started in a new online network namespace (only once onlineNetnsMode() found a way). */
export function inOnlineNetns(cmd: { file: string; args: string[] }): { file: string; args: string[] } {
  if (!found) throw new Error('inOnlineNetns before a successful onlineNetnsMode()');
  return onlineNetnsCommand(found.mode, found.tools, cmd);
}

/** The programs the probe found (tests build commands in the other mode with them). */
export function onlineNetnsTools(): Tools | undefined {
  return found?.tools;
}
