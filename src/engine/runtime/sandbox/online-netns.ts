/**
 * A network namespace that Chromium takes for online. In a namespace holding only `lo`, Chromium
 * sees no network: pages read `navigator.onLine === false` (a PWA shows its offline banner, an
 * app may refuse to send) and each navigation's first request waits 15–50 ms before it is sent
 * (document `requestStart` 20–25 ms against 5–9 with an interface, idle machine; the wait grows
 * with load). What Chromium needs is one interface besides `lo` that is up and has an IPv4 address
 * (no route needed): a veth pair whose two ends both stay in the jail's namespace gives it that
 * and nothing more — no link leaves the namespace, forwarding is off in a new namespace, so the
 * jail's only ways out are still its doors (jail-helper-launch.ts).
 *
 * The namespace is made before bwrap by `unshare --net` as root, and bwrap joins it
 * (`--share-net` after `--unshare-all`): it belongs to the host's user namespace, so nothing in
 * the jail (its own user namespace, every capability dropped) can change it. Only where the
 * engine runs as root (the jail then runs as a uid of its own, jail-user.ts); elsewhere, and
 * where the probe below fails (no veth in the kernel, no `ip`), jails keep bwrap's own namespace.
 * Measured with a hand-made bwrap of the browser jail's command line, 8 launches each.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';

/** By absolute path: the spawner's PATH is not trusted to find them. */
const UNSHARE = ['/usr/bin/unshare', '/bin/unshare'].find((p) => fs.existsSync(p));
const IP = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((p) => fs.existsSync(p));

/** `ip -batch` lines: `lo` up, and a veth pair inside the namespace with a host-only address. */
export const ONLINE_NETNS_BATCH = [
  'link set lo up',
  'link add bd0 type veth peer name bd1',
  'address add 10.255.255.1/32 dev bd0',
  'link set bd1 up',
  'link set bd0 up',
  '',
].join('\n');

/**
 * The shell step between `unshare --net` and the jail: configures the namespace, then becomes "$@".
 * A failure (after the probe passed) leaves the browser offline, as before, rather than failing
 * its launch; `ip`'s error and a line saying so go to the browser's log.
 */
export const ONLINE_NETNS_SCRIPT = `printf '%s' "$1" | "$2" -batch - || echo "browserdeck-jail: its network namespace stays offline" >&2; shift 2; exec "$@"`;

let probed: Promise<boolean> | undefined;

/** Whether jails here can start in an online namespace: root, `unshare` and `ip` found, and a veth made once in a throwaway namespace. */
export function onlineNetnsAvailable(isRoot = process.getuid?.() === 0): Promise<boolean> {
  if (!isRoot || !UNSHARE || !IP) return Promise.resolve(false);
  probed ??= new Promise((resolve) => {
    const child = execFile(UNSHARE, ['--net', IP, '-batch', '-'], { timeout: 10_000 }, (err) => resolve(!err));
    child.stdin?.end(ONLINE_NETNS_BATCH);
  });
  return probed;
}

/** `cmd` started in a new online network namespace (call only when onlineNetnsAvailable() said yes). */
export function inOnlineNetns(cmd: { file: string; args: string[] }): { file: string; args: string[] } {
  if (!UNSHARE || !IP) throw new Error('unshare or ip is missing');
  return { file: UNSHARE, args: ['--net', '--', '/bin/sh', '-c', ONLINE_NETNS_SCRIPT, 'online-netns', ONLINE_NETNS_BATCH, IP, cmd.file, ...cmd.args] };
}
