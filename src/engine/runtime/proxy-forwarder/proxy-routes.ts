/**
 * A session's `network.proxy_routes` (Kernel, spec kernel-api-after-0.84 §2.4): which upstream
 * proxy a destination uses, per host pattern, instead of the session's top-level proxy. The
 * forwarder (local-forwarder.ts) asks `match` for every request and tunnel. Kernel's rules:
 *
 * - a pattern is an exact host (`api.example.com`, an IPv4 address, an IPv6 one in brackets) or
 *   one leading `*.` over a name (`*.example.com`: every subdomain at any depth, not
 *   `example.com` itself);
 * - matching ignores the port (so a pattern carries none) and the order of the routes: an exact
 *   host beats a wildcard, a longer wildcard suffix beats a shorter one;
 * - a pattern may appear in only one route.
 *
 * Parsing throws ProxyRouteError naming the route and entry, so the domain can answer a 400.
 */
import net from 'node:net';
import { domainToASCII } from 'node:url';
import { hostNamePattern } from './host-name.js';

export const MAX_PROXY_ROUTES = 50;
export const MAX_ROUTE_HOSTS = 100;

export class ProxyRouteError extends Error {
  constructor(
    /** Where: `[i]` or `[i].hosts[j]`, relative to `proxy_routes`. */
    readonly at: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ProxyRoutes<T> {
  /** The target of the route whose pattern matches `host` best (a name or IP literal), if any. */
  match(host: string): T | undefined;
}

/** The canonical form of one pattern (`*.` kept for wildcards); throws a plain Error saying why not. */
export function routePattern(raw: string): string {
  if (typeof raw !== 'string' || !raw) throw new Error('is empty');
  if (/\s/.test(raw)) throw new Error('contains whitespace');
  const entry = raw.toLowerCase().replace(/\.$/, '');
  const bracketed = /^\[([^\]]*)\](.*)$/.exec(entry);
  if (bracketed) {
    if (bracketed[2]) throw new Error('carries a port or path: matching ignores ports, give the host only');
    if (!net.isIPv6(bracketed[1]) || bracketed[1].includes('%')) throw new Error('is not an IPv6 address in brackets (such as [2001:db8::1])');
    return `[${bracketed[1]}]`;
  }
  if (net.isIPv6(entry)) throw new Error(`is an IPv6 address without brackets: write [${entry}]`);
  if (entry.includes('/')) throw new Error('is not a host name or IP address (CIDR ranges, URLs and paths are not route patterns)');
  if (/:\d*$/.test(entry)) throw new Error('carries a port: matching ignores ports, give the host only');
  if (net.isIPv4(entry)) return entry;
  const { wildcard, ascii } = hostNamePattern(entry, 'a host name or IP address');
  return wildcard ? `*.${ascii}` : ascii;
}

/** The host as the browser asked for it, in the form patterns are kept in (allowed-hosts.ts matches the same way). */
export function canonicalHost(host: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  const bare = h.replace(/^\[|\]$/g, '');
  if (net.isIPv6(bare)) return `[${bare}]`;
  return net.isIP(bare) ? bare : domainToASCII(bare) || bare;
}

/**
 * Validates the routes' host lists (count, syntax, no pattern in two routes) and builds the
 * matcher. `target` is what a match returns (the forwarder's upstream; the domain's proxy id).
 */
export function proxyRoutes<T>(routes: ReadonlyArray<{ hosts: readonly string[]; target: T }>): ProxyRoutes<T> {
  if (routes.length > MAX_PROXY_ROUTES) throw new ProxyRouteError('', `at most ${MAX_PROXY_ROUTES} routes`);
  const exact = new Map<string, T>();
  const suffixes = new Map<string, T>();
  const where = new Map<string, string>();
  routes.forEach((route, i) => {
    if (route.hosts.length === 0) throw new ProxyRouteError(`[${i}].hosts`, 'must list at least one host');
    if (route.hosts.length > MAX_ROUTE_HOSTS) throw new ProxyRouteError(`[${i}].hosts`, `at most ${MAX_ROUTE_HOSTS} hosts per route`);
    route.hosts.forEach((raw, j) => {
      const at = `[${i}].hosts[${j}]`;
      let pattern: string;
      try {
        pattern = routePattern(raw);
      } catch (err) {
        throw new ProxyRouteError(at, `'${String(raw).slice(0, 300)}' ${(err as Error).message}`);
      }
      const first = where.get(pattern);
      if (first) throw new ProxyRouteError(at, `'${raw}' is already the pattern of ${first}: a pattern may appear in only one route`);
      where.set(pattern, at);
      if (pattern.startsWith('*.')) suffixes.set(pattern.slice(1), route.target);
      else exact.set(pattern, route.target);
    });
  });
  return {
    match(host) {
      const h = canonicalHost(host);
      const hit = exact.get(h);
      if (hit !== undefined || suffixes.size === 0 || h.startsWith('[') || net.isIPv4(h)) return hit;
      // Longest suffix first: `.a.example.com` before `.example.com`; never the name itself.
      for (let dot = h.indexOf('.'); dot >= 0; dot = h.indexOf('.', dot + 1)) {
        const t = suffixes.get(h.slice(dot));
        if (t !== undefined) return t;
      }
      return undefined;
    },
  };
}

/** No routes: everything uses the top-level choice. */
export const NO_PROXY_ROUTES: ProxyRoutes<never> = { match: () => undefined };
