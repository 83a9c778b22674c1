/**
 * A session's `network` option (Kernel API; sessions and pools): `private_hosts` — destinations
 * the session's forwarder reaches directly instead of through its upstream proxy
 * (runtime/proxy-forwarder/private-hosts.ts has the entry rules and matching) — and, for
 * sessions only, `proxy_routes` — per-destination proxies (runtime/proxy-forwarder/proxy-routes.ts
 * has the pattern rules; the proxies are resolved in domain/proxies/session-proxy-routing.ts) —
 * and `allowed_hosts`, the egress allowlist (runtime/proxy-forwarder/allowed-hosts.ts; enforced
 * by the jail's egress, so jailed sessions only). Kept in its own file because session create,
 * PATCH and the pool config check it.
 *
 * Stored with the launch options; `{}` and an omitted `network` both mean "none" (defaults
 * apply, the Session object has no `network`). `private_hosts` and `proxy_routes` are
 * create-only; `allowed_hosts` is replaced by PATCH (`null` removes it for good).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import { DEFAULT_PRIVATE_HOSTS, PrivateHostError, privateHosts } from '../../runtime/proxy-forwarder/private-hosts.js';
import { ProxyRouteError, proxyRoutes } from '../../runtime/proxy-forwarder/proxy-routes.js';
import { AllowedHostError, allowedHosts } from '../../runtime/proxy-forwarder/allowed-hosts.js';

/** A route's proxy as asked: `{id}` or `{name}`. */
export interface RouteProxy {
  id?: string;
  name?: string;
}

/** What the session keeps and reports: each route's proxy by id. */
export interface NetworkConfig {
  private_hosts?: string[];
  proxy_routes?: Array<{ hosts: string[]; proxy: { id: string } }>;
  allowed_hosts?: string[];
}

/** A checked request: routes still name their proxies as asked (resolved at create). */
export interface CheckedNetwork {
  private_hosts?: string[];
  proxy_routes?: Array<{ hosts: string[]; proxy: RouteProxy }>;
  allowed_hosts?: string[];
}

export interface NetworkRequest {
  private_hosts?: string[];
  proxy_routes?: Array<{ hosts: string[]; proxy: RouteProxy & { mode?: string } }>;
  allowed_hosts?: string[];
}

/** PATCH's `network`: only the allowlist changes on a running session. */
export interface NetworkUpdate {
  allowed_hosts?: string[] | null;
  private_hosts?: unknown;
  proxy_routes?: unknown;
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

/** A checked copy of an allowlist; `[]` is refused (`empty` says what to send instead). */
export function checkAllowedHosts(list: string[], field: string, empty: string): string[] {
  if (list.length === 0) throw DomainError.invalidField(`${field}.allowed_hosts`, `must list at least one host (${empty})`);
  try {
    allowedHosts(list);
  } catch (err) {
    if (err instanceof AllowedHostError) throw DomainError.invalidField(`${field}.allowed_hosts[${err.index}]`, err.message);
    throw err;
  }
  return [...list];
}

/** Validates a session's `network` body; undefined when it configures nothing. `field` names it in errors. */
export function checkNetwork(n: NetworkRequest | undefined, field = 'network'): CheckedNetwork | undefined {
  if (n === undefined) return undefined;
  const out: CheckedNetwork = {};
  if (n.allowed_hosts !== undefined) out.allowed_hosts = checkAllowedHosts(n.allowed_hosts, field, 'omit it for no allowlist');
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

/** A pool's `network`: `private_hosts` only (Kernel gives pools no `proxy_routes`, and pooled browsers no allowlist). */
export function checkPoolNetwork(n: NetworkRequest | undefined): { private_hosts?: string[] } | undefined {
  if (n?.proxy_routes !== undefined)
    throw DomainError.invalidField('network.proxy_routes', 'is not supported on pools (a per-session option): give it when creating a session');
  if (n?.allowed_hosts !== undefined)
    throw DomainError.invalidField(
      'network.allowed_hosts',
      'is not supported on pools (pooled browsers take no egress allowlist): give it when creating a session of its own',
    );
  const checked = checkNetwork(n);
  return checked && { private_hosts: checked.private_hosts };
}

/** The private hosts in force: the supplied list (`[]`: none), else Kernel's defaults. */
export function effectivePrivateHosts(n: { private_hosts?: string[] } | undefined): readonly string[] {
  return n?.private_hosts ?? DEFAULT_PRIVATE_HOSTS;
}

/**
 * PATCH `network` (Kernel: only `allowed_hosts` changes on a running session): the list that
 * replaces the current one, `null` to remove it, undefined when the body changes nothing.
 * `removed`: the session's list was removed before, and Kernel does not let it come back.
 */
export function checkNetworkUpdate(n: NetworkUpdate | undefined, removed: boolean): { allowed_hosts: string[] | null } | undefined {
  if (n === undefined) return undefined;
  for (const key of ['private_hosts', 'proxy_routes'] as const)
    if (n[key] !== undefined) throw DomainError.invalidField(`network.${key}`, 'cannot be changed after the session is created; create a new session with it');
  if (n.allowed_hosts === undefined) return undefined;
  if (n.allowed_hosts === null) return { allowed_hosts: null };
  const list = checkAllowedHosts(n.allowed_hosts, 'network', 'send null to remove the allowlist');
  if (removed)
    throw DomainError.conflict(
      "this session's network.allowed_hosts was removed (null) and cannot be set again; create a new session with an allowlist",
      'allowed_hosts_removed',
    );
  return { allowed_hosts: list };
}

/** `allowed_hosts` on a browser outside the jail: nothing would stop it going around the list. */
export function allowedHostsNeedJail(): DomainError {
  return DomainError.unprocessable(
    'network.allowed_hosts needs the browser jail, which this engine runs without (no usable bubblewrap, or --insecure-no-jail): only a jailed browser has no way out but its egress',
    'allowed_hosts_unsupported',
  );
}
