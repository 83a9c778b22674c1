/**
 * A session's `network` option (Kernel API 0.89; sessions and pools): only `private_hosts` is
 * implemented — destinations the session's forwarder reaches directly instead of through its
 * upstream proxy (runtime/proxy-forwarder/private-hosts.ts has the entry rules and matching).
 * Kept in its own file because both session create and the pool config check it, and the
 * Kernel keys this engine does not implement must be refused here rather than ignored.
 *
 * Stored with the launch options (create-only, like `chrome_policy`); `{}` and an omitted
 * `network` both mean "none" (defaults apply, the Session object has no `network`).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { DEFAULT_PRIVATE_HOSTS, PrivateHostError, privateHosts } from '../../runtime/proxy-forwarder/private-hosts.js';

export interface NetworkConfig {
  private_hosts?: string[];
}

export interface NetworkRequest {
  private_hosts?: string[];
  proxy_routes?: unknown;
  allowed_hosts?: unknown;
}

/** Validates a `network` body; undefined when it configures nothing. `field` names it in errors. */
export function checkNetwork(n: NetworkRequest | undefined, field = 'network'): NetworkConfig | undefined {
  if (n === undefined) return undefined;
  for (const key of ['proxy_routes', 'allowed_hosts'] as const) {
    if (n[key] !== undefined)
      throw DomainError.unprocessable(`${field}.${key} is not supported by this engine (of network, only private_hosts is)`, 'network_option_unsupported');
  }
  if (n.private_hosts === undefined) return undefined;
  try {
    privateHosts(n.private_hosts);
  } catch (err) {
    if (err instanceof PrivateHostError) throw DomainError.invalidField(`${field}.private_hosts[${err.index}]`, err.message);
    throw err;
  }
  return { private_hosts: [...n.private_hosts] };
}

/** The private hosts in force: the supplied list (`[]`: none), else Kernel's defaults. */
export function effectivePrivateHosts(n: NetworkConfig | undefined): readonly string[] {
  return n?.private_hosts ?? DEFAULT_PRIVATE_HOSTS;
}
