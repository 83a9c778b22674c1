/**
 * The jail helper: the two doors of a jail whose main program (the browser, a chromedriver)
 * lives in its own network namespace, where only `lo` exists:
 *  - in:  a Unix socket `devtools.sock` in the jail's socket dir (bound from a private host dir)
 *         piped to the main program's loopback port — the engine's only way in, no host port;
 *  - out: the jail's loopback port (Chromium's `--proxy-server`, chromedriver's debugger
 *         address) piped to a Unix socket the engine bound into the jail (its egress proxy, the
 *         session's CDP socket). Nothing else leaves the namespace: no UDP, no DNS.
 * Each door is a `socat` (Debian's, from the system dirs every jail sees read-only), not Node:
 * a pair costs ~2 MB of PSS per session where a Node helper cost ~9 (npm run bench:memory),
 * and starts in a few milliseconds instead of competing with Chromium's start for ~40 ms of CPU.
 * A shell starts both and the main program, prints `browserdeck-jail: ready` on stderr once both
 * doors listen, and ends the jail when the main program exits (MAIN_SCRIPT).
 */
import { DEFAULT_PATH } from './bwrap.js';
import { firstExecutable, isExecutable, onPath } from '../find-executable.js';

export interface JailHelperDoors {
  /** In-jail dir where the helper creates its inbound socket (bound from a private host dir). */
  sockDir: string;
  inboundPort: number;
  outboundPort: number;
  /** In-jail path of the socket the outbound port leads to. */
  outboundSocket: string;
}

/** The name of the inbound socket in the socket dir (it was first the browser's DevTools door). */
export const INBOUND_SOCKET_NAME = 'devtools.sock';

let found: { override: string | undefined; path: string | undefined } | undefined;

/**
 * socat from the system's own dirs (DEFAULT_PATH: all of them are bound read-only in every
 * jail, so the path is the same inside), or undefined. Not the engine's PATH: a socat the jail
 * cannot see is no use. `BROWSERDECK_SOCAT` names another one (it must be under a system dir
 * too). Looked up once per value: every create asks (jailStatus), and the hot path does no sync
 * file system probe.
 */
export function findSocat(): string | undefined {
  const override = process.env.BROWSERDECK_SOCAT;
  if (!found || found.override !== override)
    found = {
      override,
      path: override !== undefined ? (isExecutable(override) ? override : undefined) : firstExecutable(onPath('socat', { PATH: DEFAULT_PATH })),
    };
  return found.path;
}

/** Why the jail's doors cannot be built here, or undefined when they can. */
export function jailHelperUnavailableReason(): string | undefined {
  if (findSocat()) return undefined;
  const override = process.env.BROWSERDECK_SOCAT;
  return override !== undefined
    ? `BROWSERDECK_SOCAT=${override} is not an executable file (socat: the jail's network doors)`
    : "socat is not installed (the jail's network doors; on Debian: apt-get install socat)";
}

/**
 * Shell function `listening`: whether both doors accept connections — `$sock` in `/proc/net/unix`
 * with the listening flag (`__SO_ACCEPTCON`; the file alone exists from socat's `bind()` on, and a
 * connection in the moment before its `listen()` is refused: chromedriver's door refused a
 * WebDriver session once on a busy CI machine), and `$outport` (as `$want`, `:%04X`) in LISTEN
 * state in `/proc/net/tcp` (the port alone is compared: the address there is in host byte order).
 * Both files list the reader's network namespace only: the jail's.
 */
export const LISTENING_FUNCTION = [
  'listening() {',
  '  unix=1',
  '  while read -r _ _ _ flags _ _ _ p; do [ "$p" = "$sock" ] && [ "$flags" = 00010000 ] && { unix=0; break; }; done < /proc/net/unix',
  '  [ $unix = 0 ] || return 1',
  '  while read -r _ local _ st _; do [ "${local%$want}" != "$local" ] && [ "$st" = 0A ] && return 0; done < /proc/net/tcp',
  '  return 1',
  '}',
].join('\n');

/**
 * The jail's main program. The doors first: each socat forks a child per connection (`fork`),
 * with a listen backlog a page load's burst of proxy connections fits in (socat's default is 5)
 * and 64 KiB buffers (CDP screenshots are megabytes). The main program starts at once beside
 * them (waiting for the doors first cost ~10 ms of every cold create); the shell polls, with
 * builtins only, until both doors listen (LISTENING_FUNCTION), then reports ready — the engine
 * waits for that line and Chromium's DevTools line, and a browser only goes anywhere once the
 * engine tells it to — or reports a door that died and ends the jail. Once the main
 * program exits, the shell waits (1.5 s at most: within stopChromium's 2 s grace) until no
 * process but the doors is left in the jail, then exits with the main program's status. The
 * jail's PID namespace ends with it and the kernel kills whatever still runs there: Chromium's
 * storage service, a process of its own, may still be writing the profile's LevelDB
 * (localStorage) after the browser process exited from `Browser.close` (profile-save-running
 * lost a localStorage value once in three CI runs).
 */
const MAIN_SCRIPT = [
  'socat=$1 sock=$2/' + INBOUND_SOCKET_NAME + ' inport=$3 outport=$4 outsock=$5',
  'shift 5',
  '"$socat" -b65536 TCP4-LISTEN:$outport,bind=127.0.0.1,reuseaddr,fork,backlog=128 UNIX-CONNECT:"$outsock" & out=$!',
  '"$socat" -b65536 UNIX-LISTEN:"$sock",fork,backlog=128 TCP4:127.0.0.1:$inport & in=$!',
  "want=$(printf ':%04X' $outport)",
  LISTENING_FUNCTION,
  '"$@" & main=$!',
  "trap 'kill -TERM $main 2>/dev/null' TERM INT",
  'until listening; do',
  '  kill -0 $out 2>/dev/null && kill -0 $in 2>/dev/null || { echo "browserdeck-jail: a door (socat) exited before listening" >&2; kill -KILL $main $out $in 2>/dev/null; exit 70; }',
  '  sleep 0.002',
  'done',
  'echo "browserdeck-jail: ready" >&2',
  'wait $main; status=$?',
  'i=0',
  'while [ $i -lt 15 ]; do',
  '  others=0',
  '  for p in /proc/[0-9]*; do',
  '    n=${p#/proc/}',
  '    [ "$n" = 1 ] || [ "$n" = $$ ] || { read -r c < $p/comm; [ "$c" = socat ]; } 2>/dev/null || others=1',
  '  done',
  '  [ $others = 0 ] && break',
  '  sleep 0.1; i=$((i + 1))',
  'done',
  'kill $out $in 2>/dev/null',
  'exit $status',
].join('\n');

/** Ends the bwrap options: the doors, then `command` (MAIN_SCRIPT). */
export function besideJailHelper(a: string[], doors: JailHelperDoors, command: string[]): void {
  const socat = findSocat();
  if (!socat) throw new Error(jailHelperUnavailableReason());
  a.push(
    '--',
    '/bin/sh',
    '-c',
    MAIN_SCRIPT,
    'sh',
    socat,
    doors.sockDir,
    String(doors.inboundPort),
    String(doors.outboundPort),
    doors.outboundSocket,
    ...command,
  );
}
