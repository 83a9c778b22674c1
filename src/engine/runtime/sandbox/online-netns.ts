/**
 * A network namespace that Chromium takes for online. In a namespace holding only `lo`, Chromium
 * sees no network: pages read `navigator.onLine === false` (a PWA shows its offline banner, an
 * app may refuse to send) and each navigation's first request waits before it is sent (document
 * `sendStart` p50 67–78 ms back to back, 2.1 ms with the interface: `bench/connect-profile.ts
 * --no-raw`; the wait grows with load). What Chromium needs is one interface besides `lo` that is up and has an IPv4 address
 * (no route needed): a veth pair whose two ends both stay in the jail's namespace gives it that
 * and nothing more — no link leaves the namespace, forwarding is off in a new namespace, so the
 * jail's only ways out are still its doors (jail-helper-launch.ts).
 *
 * The namespace is made before bwrap by `unshare --net` as root, and bwrap joins it
 * (`--share-net` after `--unshare-all`): it belongs to the host's user namespace, so nothing in
 * the jail (its own user namespace, every capability dropped) can change it. Only where the
 * engine runs as root (the jail then runs as a uid of its own, jail-user.ts); elsewhere, and
 * where the probe below fails (no veth in the kernel, no `ip`), jails keep bwrap's own namespace.
 * Which namespace causes the wait: `bench/jail-netns.ts`.
 */
import { execFile } from 'node:child_process';
import { DEFAULT_PATH } from './bwrap.js';
import { firstExecutable, onPath } from '../find-executable.js';

/** From the system's own dirs (as socat, jail-helper-launch.ts): the spawner's PATH is not trusted. Looked up once, by the probe. */
let tools: { unshare: string; ip: string } | undefined;
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

let probed: Promise<boolean> | undefined;

/** Whether jails here can start in an online namespace: root, `unshare` and `ip` found, and a veth made once in a throwaway namespace. */
export function onlineNetnsAvailable(isRoot = process.getuid?.() === 0): Promise<boolean> {
  if (!isRoot) return Promise.resolve(false);
  probed ??= new Promise((resolve) => {
    const unshare = systemProgram('unshare');
    const ip = systemProgram('ip');
    if (!unshare || !ip) return resolve(false);
    const child = execFile(unshare, ['--net', ip, '-batch', '-'], { timeout: 10_000 }, (err) => {
      if (!err) tools = { unshare, ip };
      resolve(!err);
    });
    child.stdin?.end(ONLINE_NETNS_BATCH);
  });
  return probed;
}

/** `cmd` started in a new online network namespace (only once onlineNetnsAvailable() said yes). */
export function inOnlineNetns(cmd: { file: string; args: string[] }): { file: string; args: string[] } {
  if (!tools) throw new Error('inOnlineNetns before a successful onlineNetnsAvailable()');
  return {
    file: tools.unshare,
    args: ['--net', '--', '/bin/sh', '-c', ONLINE_NETNS_SCRIPT, 'online-netns', ONLINE_NETNS_BATCH, tools.ip, cmd.file, ...cmd.args],
  };
}
