/**
 * A session's `network` option (Kernel API; sessions and pools): `private_hosts` — destinations
 * the session's forwarder reaches directly instead of through its upstream proxy
 * (runtime/proxy-forwarder/private-hosts.ts has the entry rules and matching) — and, for
 * sessions only, `proxy_routes` — per-destination proxies (runtime/proxy-forwarder/proxy-routes.ts
 * has the pattern rules; the proxies are resolved in domain/proxies/session-proxy-routing.ts).
 * Kept in its own file because both session create and the pool config check it, and the
 * Kernel keys this engine does not implement (`allowed_hosts`) must be refused here rather than
 * ignored.
 *
 * Stored with the launch options (create-only, like `chrome_policy`); `{}` and an omitted
 * `network` both mean "none" (defaults apply, the Session object has no `network`).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { DEFAULT_PRIVATE_HOSTS, PrivateHostError, privateHosts } from '../../runtime/proxy-forwarder/private-hosts.js';
import { ProxyRouteError, proxyRoutes } from '../../runtime/proxy-forwarder/proxy-routes.js';

/** A route's proxy as asked: `{id}` or `{name}`. */
export interface RouteProxy {
  id?: string;
  name?: string;
}

/** What the session keeps and reports: each route's proxy by id. */
export interface NetworkConfig {
  private_hosts?: string[];
  proxy_routes?: Array<{ hosts: string[]; proxy: { id: string } }>;
}

/** A checked request: routes still name their proxies as asked (resolved at create). */
export interface CheckedNetwork {
  private_hosts?: string[];
  proxy_routes?: Array<{ hosts: string[]; proxy: RouteProxy }>;
}

export interface NetworkRequest {
  private_hosts?: string[];
  proxy_routes?: Array<{ hosts: string[]; proxy: RouteProxy & { mode?: string } }>;
  allowed_hosts?: unknown;
}

function checkRouteProxy(p: RouteProxy & { mode?: string }, at: string): RouteProxy {
  if (p.mode !== undefined) throw DomainError.invalidField(`${at}.proxy`, 'is a proxy id or name: a destination without a route uses the top-level proxy');
  if (!!p.id === !!p.name) throw DomainError.invalidField(`${at}.proxy`, 'give exactly one of id and name');
  return p.id ? { id: p.id } : { name: p.name };
}

function checkRoutes(routes: NonNullable<NetworkRequest['proxy_routes']>, field: string): NonNullable<CheckedNetwork['proxy_routes']> {
  const out = routes.map((r, i) => ({ hosts: [...r.hosts], proxy: checkRouteProxy(r.proxy, `${field}.proxy_routes[${i}]`) }));
  try {
    proxyRoutes(out.map((r) => ({ hosts: r.hosts, target: r })));
  } catch (err) {
    if (err instanceof ProxyRouteError) throw DomainError.invalidField(`${field}.proxy_routes${err.at}`, err.message);
    throw err;
  }
  return out;
}

/** Validates a session's `network` body; undefined when it configures nothing. `field` names it in errors. */
export function checkNetwork(n: NetworkRequest | undefined, field = 'network'): CheckedNetwork | undefined {
  if (n === undefined) return undefined;
  if (n.allowed_hosts !== undefined)
    throw DomainError.unprocessable(
      `${field}.allowed_hosts is not supported by this engine (of network, private_hosts and proxy_routes are)`,
      'network_option_unsupported',
    );
  const out: CheckedNetwork = {};
  if (n.private_hosts !== undefined) {
    try {
      privateHosts(n.private_hosts);
    } catch (err) {
      if (err instanceof PrivateHostError) throw DomainError.invalidField(`${field}.private_hosts[${err.index}]`, err.message);
      throw err;
    }
    out.private_hosts = [...n.private_hosts];
  }
  if (n.proxy_routes?.length) out.proxy_routes = checkRoutes(n.proxy_routes, field);
  return Object.keys(out).length ? out : undefined;
}

/** A pool's `network`: `private_hosts` only (Kernel gives pools no `proxy_routes`). */
export function checkPoolNetwork(n: NetworkRequest | undefined): { private_hosts?: string[] } | undefined {
  if (n?.proxy_routes !== undefined)
    throw DomainError.invalidField('network.proxy_routes', 'is not supported on pools (a per-session option): give it when creating a session');
  const checked = checkNetwork(n);
  return checked && { private_hosts: checked.private_hosts };
}

/** The private hosts in force: the supplied list (`[]`: none), else Kernel's defaults. */
export function effectivePrivateHosts(n: { private_hosts?: string[] } | undefined): readonly string[] {
  return n?.private_hosts ?? DEFAULT_PRIVATE_HOSTS;
}
