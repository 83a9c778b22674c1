/**
 * How a jail starts `jail-helper.mjs` beside its main program (the browser, a chromedriver):
 * the helper and its forwarder are bound read-only into the jail, and a shell starts the helper
 * in the background, then execs the main program, whose exit ends the jail. The helper takes
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

/** Ends the bwrap options: the helper starts beside `command`, which the shell then becomes. */
export function besideJailHelper(a: string[], node: string, doors: JailHelperDoors, command: string[]): void {
  const script = '"$1" "$2" "$3" "$4" "$5" "$6" & shift 6; exec "$@"';
  a.push(
    '--',
    '/bin/sh',
    '-c',
    script,
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
