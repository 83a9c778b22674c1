/**
 * The egress policy: address ranges a jailed browser may not reach. It is applied where the
 * browser's traffic leaves the jail (the session's forwarding proxy): the destination name is
 * resolved once, the resolved address is checked, and the connection goes to exactly that
 * address — a name that resolves differently a moment later (DNS rebinding) cannot slip past.
 * IPv4-mapped IPv6 addresses (`::ffff:169.254.169.254`) are checked as the IPv4 they are.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import type { HostAddressSource } from './host-addresses.js';

export class EgressDenied extends Error {
  constructor(
    readonly destination: string,
    readonly address: string,
    readonly range: string,
    /** How the operator opens it, said in the refusal (the 403 page, `/curl`'s error). */
    readonly hint?: string,
  ) {
    super(`egress to ${destination} (${address}) is denied by the engine's egress policy (${range})${hint ? `; ${hint}` : ''}`);
  }
}

export interface EgressPolicy {
  readonly ranges: readonly string[];
  /** The denied range `address` falls in (or THIS_HOST_ADDRESS), or undefined. */
  deniedRange(address: string): string | undefined;
  /** The refusal of connecting to `address` for `destination`, or undefined when it is allowed. */
  denial(destination: string, address: string): EgressDenied | undefined;
  /** Resolves `host` to the one address to connect to; throws EgressDenied when it is denied. */
  resolve(host: string): Promise<string>;
}

/**
 * "This host" as tenants' policy denies it: its loopback ranges and its own interface addresses
 * (host-addresses.ts), refused with `hint` naming what opens them.
 */
export interface ThisHost {
  ranges: readonly string[];
  addresses: HostAddressSource;
  hint: string;
}

/** The "range" a refusal names for one of the host's own interface addresses. */
export const THIS_HOST_ADDRESS = "this host's own address";

function parseRange(cidr: string): { list: net.BlockList; cidr: string } {
  const [addr, bits, extra] = cidr.split('/');
  const type = net.isIPv4(addr) ? 'ipv4' : net.isIPv6(addr) ? 'ipv6' : undefined;
  const max = type === 'ipv4' ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!type || extra !== undefined || !/^\d+$/.test(bits ?? String(max)) || prefix > max)
    throw new Error(`'${cidr}' is not an address range (CIDR such as 169.254.0.0/16 or fd00::/8)`);
  const list = new net.BlockList();
  list.addSubnet(addr, prefix, type);
  return { list, cidr };
}

function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

/**
 * Builds a policy from CIDR strings, plus `thisHost` when given; throws with the offending entry
 * when a range is malformed.
 */
export function egressPolicy(cidrs: readonly string[], lookup: (host: string) => Promise<string> = defaultLookup, thisHost?: ThisHost): EgressPolicy {
  const ranges = cidrs.map(parseRange);
  const hostRanges = (thisHost?.ranges ?? []).map(parseRange);
  const inRanges = (list: Array<{ list: net.BlockList; cidr: string }>, a: string): string | undefined => {
    const type = net.isIPv4(a) ? 'ipv4' : 'ipv6';
    return list.find((r) => r.list.check(a, type))?.cidr;
  };
  /** The configured range first (the operator named it), then this host's loopback and own addresses. */
  const denied = (address: string): { range: string; hint?: string } | undefined => {
    const a = unmapped(address);
    const range = inRanges(ranges, a);
    if (range) return { range };
    if (!thisHost) return undefined;
    const loopback = inRanges(hostRanges, a);
    if (loopback) return { range: loopback, hint: thisHost.hint };
    return thisHost.addresses.has(a) ? { range: THIS_HOST_ADDRESS, hint: thisHost.hint } : undefined;
  };
  const denial = (destination: string, address: string): EgressDenied | undefined => {
    const d = denied(address);
    return d && new EgressDenied(destination, address, d.range, d.hint);
  };
  return {
    ranges: [...ranges, ...hostRanges].map((r) => r.cidr),
    deniedRange: (address) => denied(address)?.range,
    denial,
    async resolve(host) {
      const bare = host.replace(/^\[|\]$/g, '');
      const address = net.isIP(bare) ? bare : await lookup(bare);
      const refused = denial(host, address);
      if (refused) throw refused;
      return address;
    },
  };
}

async function defaultLookup(host: string): Promise<string> {
  return (await dns.lookup(host)).address;
}

const byList = new WeakMap<readonly string[], EgressPolicy>();

/** The policy of an engine's configured ranges, parsed once per list (the config's array). */
export function egressPolicyOf(cidrs: readonly string[]): EgressPolicy {
  let p = byList.get(cidrs);
  if (!p) byList.set(cidrs, (p = egressPolicy(cidrs)));
  return p;
}

/**
 * The engine host's loopback and "this host" addresses: a connection to `0.0.0.0` or `::` lands
 * on the host itself, and IPv4-mapped forms (`::ffff:127.0.0.1`) are matched as their IPv4.
 */
export const LOOPBACK_RANGES: readonly string[] = ['127.0.0.0/8', '::1/128', '0.0.0.0/8', '::/128'];

/** What a refusal of this host says opens it (config.ts `egressLoopback`). */
export const THIS_HOST_HINT =
  'this host (loopback and its own addresses) is opened to tenants only by --egress-allow-loopback (BROWSERDECK_EGRESS_ALLOW_LOOPBACK=1)';

/**
 * The policy of what tenants run — session browsers, apps, proxy checks: the configured ranges
 * plus, unless the operator allows this host (`egressLoopback`), the host itself: its loopback,
 * where the engine's own port and services bound to 127.0.0.1 listen, and every address of its
 * own interfaces (`hostAddresses`, watched: host-addresses.ts), where whatever is bound to
 * `0.0.0.0`/`::` listens too. One switch for both: a service on `0.0.0.0` answers on loopback
 * and on every interface alike, so with either one open it is reachable all the same. Kept
 * apart from the configured ranges because the engine's own OTLP exports use those and may go to
 * a collector on this host.
 */
export function tenantEgressPolicyOf(cidrs: readonly string[], allowThisHost: boolean, hostAddresses: HostAddressSource): EgressPolicy {
  if (allowThisHost) return egressPolicyOf(cidrs);
  return egressPolicy(cidrs, defaultLookup, { ranges: LOOPBACK_RANGES, addresses: hostAddresses, hint: THIS_HOST_HINT });
}

/** A policy that denies nothing (unjailed sessions, tests of the forwarder itself). */
export const OPEN_EGRESS: EgressPolicy = egressPolicy([]);
