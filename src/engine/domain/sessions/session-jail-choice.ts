/**
 * How a session's browser is jailed. A create (and a standby launch) asks once whether it is —
 * where bubblewrap is usable and the operator did not choose `--insecure-no-jail`
 * (runtime/sandbox/jail-status.ts, in session-create-pipeline.ts) — and that one answer decides
 * this, how its proxy forwarder is reached (the jail's Unix socket, or a loopback port), whether a
 * standby browser can serve it, and what it may ask for: a proxy's `ca_bundle`, `chrome_policy` and
 * `network.allowed_hosts` need the jail and are refused without it.
 */
import type { EngineContext } from '../../context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionJailConfig } from '../../runtime/session/running-session.js';
import type { LocalForwarder } from '../../runtime/proxy-forwarder/local-forwarder.js';
import { allowedHostsNeedJail } from './session-network.js';

export interface JailAsks {
  /** The session's proxy forwarder (its jail's egress); absent: direct through the jail's own. */
  egress?: LocalForwarder;
  chromePolicy?: Record<string, unknown>;
  /** A TLS-intercepting proxy's CAs (`ca_bundle`), trusted through the jail's managed policy. */
  caCertificates?: string[];
  /** `network.allowed_hosts`, enforced on the jail's egress, its only way out. */
  allowedHosts?: string[];
}

/**
 * How this session's browser is jailed (runtime/sandbox/browser-jail.ts), or undefined when it
 * runs on the host (`bwrap` null); refuses what only a jailed browser can have.
 */
export function jailFor(bwrap: string | null, ctx: Pick<EngineContext, 'config' | 'tenantEgress'>, asks: JailAsks = {}): SessionJailConfig | undefined {
  const { chromePolicy, caCertificates = [], allowedHosts } = asks;
  const hasPolicy = !!chromePolicy && Object.keys(chromePolicy).length > 0;
  if (!bwrap) {
    if (caCertificates.length)
      throw DomainError.unprocessable(
        'a proxy with a ca_bundle needs the browser jail, which this engine runs without (no usable bubblewrap, or --insecure-no-jail): only a jailed browser can trust a CA of its own',
        'ca_bundle_unsupported',
      );
    if (hasPolicy)
      throw DomainError.unprocessable(
        'chrome_policy needs the browser jail, which this engine runs without (no usable bubblewrap, or --insecure-no-jail): Chromium reads policies only from system directories',
        'chrome_policy_unsupported',
      );
    if (allowedHosts) throw allowedHostsNeedJail();
    return undefined;
  }
  return {
    bwrap,
    hide: [ctx.config.dataDir],
    policy: ctx.tenantEgress,
    egress: asks.egress,
    chromePolicy: hasPolicy ? chromePolicy : undefined,
    ...(caCertificates.length ? { caCertificates } : {}),
    ...(allowedHosts ? { allowedHosts } : {}),
  };
}
