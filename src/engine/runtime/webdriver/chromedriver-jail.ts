/**
 * The jail of a session's chromedriver. chromedriver executes whatever a tenant's WebDriver
 * client sends, so it runs like the other tenant-driven helpers (bidi-jail.ts, helper-jail.ts):
 * new namespaces including the network (only `lo`), every capability dropped, a tmpfs root with
 * the system dirs read-only and the engine's data dir hidden, `--die-with-parent`, a cleared
 * environment. Its two doors are the browser jail's helper (sandbox/jail-helper-launch.ts) reused:
 *  - out: 127.0.0.1:9222 inside → the session's CDP socket (sandbox/cdp-socket.ts), which is
 *    what `goog:chromeOptions.debuggerAddress` names;
 *  - in:  a Unix socket in a private host dir bound at `/run/browserdeck/sock` → chromedriver's
 *    port 127.0.0.1:9515 inside. The engine's HTTP client speaks to chromedriver only there;
 *    no host TCP port is opened.
 */
import { INBOUND_SOCKET_NAME, besideJailHelper } from '../sandbox/jail-helper-launch.js';
import { DEFAULT_PATH, SANDBOX_CDP_PORT, SANDBOX_CDP_SOCKET, SANDBOX_DIR, baseSandboxArgs } from '../sandbox/bwrap.js';

/** chromedriver's port inside its own network namespace (the same for every session). */
export const JAILED_CHROMEDRIVER_PORT = 9515;
/** Where the session's browser appears inside the jail, for `debuggerAddress`. */
export const JAILED_DEBUGGER_ADDRESS = `127.0.0.1:${SANDBOX_CDP_PORT}`;
const SOCK_DIR = `${SANDBOX_DIR}/sock`;
/** The jail helper's inbound socket (jail-helper-launch.ts). */
export const CHROMEDRIVER_SOCKET_NAME = INBOUND_SOCKET_NAME;

export interface ChromedriverJailSpec {
  bwrap: string;
  chromedriver: string;
  /** Host path of the session's CDP socket. */
  cdpSocket: string;
  /** Private host dir (0700) where the jail creates its inbound socket. */
  sockDir: string;
  /** Host paths to mask when they fall under a bound system dir (the data dir). */
  hide: string[];
}

export async function chromedriverJailCommand(spec: ChromedriverJailSpec): Promise<{ file: string; args: string[] }> {
  const a = await baseSandboxArgs({ hide: spec.hide });
  a.push('--tmpfs', '/tmp');
  a.push('--ro-bind', spec.cdpSocket, SANDBOX_CDP_SOCKET, '--bind', spec.sockDir, SOCK_DIR);
  a.push('--chdir', '/tmp', '--clearenv', '--setenv', 'PATH', DEFAULT_PATH, '--setenv', 'HOME', '/tmp', '--setenv', 'LANG', 'C.UTF-8');
  // The helper runs beside chromedriver; chromedriver is the jail's main process (its exit ends the jail).
  besideJailHelper(a, { sockDir: SOCK_DIR, inboundPort: JAILED_CHROMEDRIVER_PORT, outboundPort: SANDBOX_CDP_PORT, outboundSocket: SANDBOX_CDP_SOCKET }, [
    spec.chromedriver,
    `--port=${JAILED_CHROMEDRIVER_PORT}`,
  ]);
  return { file: spec.bwrap, args: a };
}
