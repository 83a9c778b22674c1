/**
 * Whether this engine jails what tenants control (browsers, processes, code, apps), and why
 * not when it does not. Without the jail the engine must not serve other machines unless the
 * operator says so explicitly (`--insecure-no-jail`): a remote client could otherwise use a
 * browser to read the host's files. Reported at start and in `/healthz`.
 */
import net from 'node:net';
import { bwrapUnavailableReason, usableBwrap } from './bwrap.js';
import { jailHelperUnavailableReason } from './jail-helper-launch.js';

export interface JailStatus {
  /** The bwrap binary browsers are jailed with, or null. */
  bwrap: string | null;
  /** Why there is no jail (when bwrap is null). */
  reason?: string;
}

export async function jailStatus(opts: { insecureNoJail: boolean }): Promise<JailStatus> {
  if (opts.insecureNoJail) return { bwrap: null, reason: 'the operator chose --insecure-no-jail' };
  const bwrap = await usableBwrap();
  // A jailed browser is reachable only through its doors: without them there is no jail.
  const noDoors = jailHelperUnavailableReason();
  if (bwrap && noDoors) return { bwrap: null, reason: noDoors };
  if (bwrap) return { bwrap };
  return { bwrap: null, reason: (await bwrapUnavailableReason()) ?? 'bubblewrap is not usable here' };
}

/**
 * The bwrap that jails apps (installs, discovery, invocations), which need no doors: wherever
 * bwrap works unless the operator chose --insecure-no-jail. A missing socat leaves browsers
 * unjailed (no jail, says `jailStatus`), but need not leave apps' code on the host's files too.
 */
export async function appJailBwrap(opts: { insecureNoJail: boolean }): Promise<string | null> {
  return opts.insecureNoJail ? null : usableBwrap();
}

/** Whether a listening address only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  return h === '::1';
}

/** Throws when the engine would serve other machines without the jail and without consent. */
export function assertServable(host: string, status: JailStatus, insecureNoJail: boolean): void {
  if (status.bwrap || insecureNoJail || isLoopbackHost(host)) return;
  throw new Error(
    `refusing to listen on ${host} without the session jail (${status.reason}): browsers would run on this machine's filesystem. ` +
      'Install bubblewrap with working user namespaces, listen on 127.0.0.1, or pass --insecure-no-jail to accept the risk',
  );
}
