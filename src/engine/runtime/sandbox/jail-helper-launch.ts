/**
 * How a jail starts `jail-helper.mjs` beside its main program (the browser, a chromedriver):
 * the helper and its forwarder are bound read-only into the jail, and a shell starts the helper
 * in the background, then runs the main program, whose exit ends the jail (MAIN_SCRIPT). The helper takes
 * `<socket dir> <inbound port> <outbound port> <outbound socket>`: it listens on a Unix socket in
 * the socket dir (the engine's way in) piped to the inbound loopback port, and pipes the
 * outbound loopback port to a socket the engine bound into the jail.
 */
import { SANDBOX_DIR } from './bwrap.js';
import { bindEngineAsset } from './jail-visible.js';

export interface JailHelperDoors {
  /** In-jail dir where the helper creates its inbound socket (bound from a private host dir). */
  sockDir: string;
  inboundPort: number;
  outboundPort: number;
  /** In-jail path of the socket the outbound port leads to. */
  outboundSocket: string;
}

/** Mounts the helper's files (call among the bwrap options, before `--`). */
export function mountJailHelper(a: string[]): void {
  bindEngineAsset(a, 'sandbox/jail-helper.mjs');
  bindEngineAsset(a, 'sandbox/cdp-forwarder.mjs');
}

/**
 * The jail's main program: the helper in the background, then `command`; once `command` exits,
 * the shell waits (1.5 s at most: within stopChromium's 2 s grace) until no other process is left
 * in the jail, then exits with `command`'s status. The jail's PID namespace ends with it and the
 * kernel kills whatever still runs there: Chromium's storage service, a process of its own, may
 * still be writing the profile's LevelDB (localStorage) after the browser process exited from
 * `Browser.close` (profile-save-running lost a localStorage value once in three CI runs).
 */
const MAIN_SCRIPT = [
  '"$1" "$2" "$3" "$4" "$5" "$6" & helper=$!',
  'shift 6',
  '"$@" & main=$!',
  "trap 'kill -TERM $main 2>/dev/null' TERM INT",
  'wait $main; status=$?',
  'i=0',
  'while [ $i -lt 15 ]; do',
  '  others=0',
  '  for p in /proc/[0-9]*; do n=${p#/proc/}; [ "$n" = 1 ] || [ "$n" = $$ ] || [ "$n" = "$helper" ] || others=1; done',
  '  [ $others = 0 ] && break',
  '  sleep 0.1; i=$((i + 1))',
  'done',
  'kill $helper 2>/dev/null',
  'exit $status',
].join('\n');

/** Ends the bwrap options: the helper starts beside `command` (MAIN_SCRIPT). */
export function besideJailHelper(a: string[], node: string, doors: JailHelperDoors, command: string[]): void {
  a.push(
    '--',
    '/bin/sh',
    '-c',
    MAIN_SCRIPT,
    'sh',
    node,
    `${SANDBOX_DIR}/jail-helper.mjs`,
    doors.sockDir,
    String(doors.inboundPort),
    String(doors.outboundPort),
    doors.outboundSocket,
    ...command,
  );
}
