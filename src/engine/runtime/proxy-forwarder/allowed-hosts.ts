/**
 * A session's `network.allowed_hosts` (Kernel, spec kernel-api-after-0.84 §2.2/§2.4): an egress
 * allowlist. The session's forwarder (local-forwarder.ts) asks `allows` for every request and
 * tunnel before anything else; a destination not on the list is refused, and one on it still goes
 * through the engine's egress policy and the session's proxy and routes as usual.
 *
 * Entries are proxy_routes' host patterns (proxy-routes.ts `routePattern`: an exact host, or one
 * leading `*.` covering subdomains at any depth but not the name itself; IDN kept as ASCII) with
 * an optional `:port` (then only that port). IP literals (`10.1.2.3`, `[2001:db8::1]`) are exact
 * entries too, and match only a URL written with that literal: names are never compared by the
 * address they resolve to, in either direction — a name that happens to resolve to an allowed
 * address is not allowed, and an allowed name does not open its address (the engine resolves
 * each name itself, once, when it connects). CIDR ranges are not entries: the list names hosts.
 */
import { canonicalHost, routePattern } from './proxy-routes.js';

export const MAX_ALLOWED_HOSTS = 100;

export class AllowedHostError extends Error {
  constructor(
    readonly index: number,
    readonly entry: string,
    reason: string,
  ) {
    super(`'${String(entry).slice(0, 300)}' ${reason}`);
  }
}

export interface AllowedHosts {
  /** Whether a destination (the host as the browser asked for it, name or IP literal, and port) may be reached. */
  allows(host: string, port: number): boolean;
}

interface Rule {
  /** The canonical host, or the suffix (with its leading dot) of a wildcard. */
  host: string;
  wildcard: boolean;
  port?: number;
}

/** canonicalHost, with IPv6 in its one compressed spelling (as Chromium writes it). */
function canonical(host: string): string {
  const h = canonicalHost(host);
  return h.startsWith('[') ? new URL(`http://${h}`).hostname : h;
}

function parsePort(text: string): number {
  const port = /^[1-9]\d{0,4}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new Error('has an invalid port (1-65535)');
  return port;
}

function parseEntry(raw: string): Rule {
  if (typeof raw !== 'string' || !raw) throw new Error('is empty');
  if (/\s/.test(raw)) throw new Error('contains whitespace');
  if (raw.includes('/')) throw new Error('is not a host (CIDR ranges, URLs and paths are not allowlist entries)');
  // `[v6]:port`, `host:port`; more than one colon outside brackets is an unbracketed IPv6 address (routePattern says so).
  const bracketed = /^(\[[^\]]*\])(?::(.*))?$/.exec(raw);
  const colon = raw.indexOf(':');
  const split = bracketed
    ? { host: bracketed[1], port: bracketed[2] }
    : colon > 0 && colon === raw.lastIndexOf(':')
      ? { host: raw.slice(0, colon), port: raw.slice(colon + 1) }
      : { host: raw, port: undefined };
  const given = routePattern(split.host);
  const pattern = given.startsWith('[') ? canonical(given) : given;
  const port = split.port === undefined ? undefined : parsePort(split.port);
  return pattern.startsWith('*.') ? { host: pattern.slice(1), wildcard: true, port } : { host: pattern, wildcard: false, port };
}

/** Parses a list (each entry checked); throws AllowedHostError for the first bad one. `[]` is refused by the caller. */
export function allowedHosts(entries: readonly string[]): AllowedHosts {
  if (entries.length > MAX_ALLOWED_HOSTS)
    throw new AllowedHostError(MAX_ALLOWED_HOSTS, String(entries[MAX_ALLOWED_HOSTS]), `is one entry too many (at most ${MAX_ALLOWED_HOSTS})`);
  const rules = entries.map((entry, i) => {
    try {
      return parseEntry(entry);
    } catch (err) {
      throw new AllowedHostError(i, entry, (err as Error).message);
    }
  });
  return {
    allows(host, port) {
      const h = canonical(host);
      const literal = h.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(h);
      return rules.some((r) => (r.port === undefined || r.port === port) && (r.wildcard ? !literal && h.endsWith(r.host) : h === r.host));
    },
  };
}
