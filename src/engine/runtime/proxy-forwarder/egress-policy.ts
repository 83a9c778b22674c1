/**
 * The egress policy: address ranges a jailed browser may not reach. It is applied where the
 * browser's traffic leaves the jail (the session's forwarding proxy): the destination name is
 * resolved once, the resolved address is checked, and the connection goes to exactly that
 * address — a name that resolves differently a moment later (DNS rebinding) cannot slip past.
 * IPv4-mapped IPv6 addresses (`::ffff:169.254.169.254`) are checked as the IPv4 they are.
 */
import dns from 'node:dns/promises';
import net from 'node:net';

export class EgressDenied extends Error {
  constructor(
    readonly destination: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`egress to ${destination} (${address}) is denied by the engine's egress policy (${range})`);
  }
}

export interface EgressPolicy {
  readonly ranges: readonly string[];
  /** The denied range `address` falls in, or undefined. */
  deniedRange(address: string): string | undefined;
  /** Resolves `host` to the one address to connect to; throws EgressDenied when it is denied. */
  resolve(host: string): Promise<string>;
}

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

/** Builds a policy from CIDR strings; throws with the offending entry when one is malformed. */
export function egressPolicy(cidrs: readonly string[], lookup: (host: string) => Promise<string> = defaultLookup): EgressPolicy {
  const ranges = cidrs.map(parseRange);
  const deniedRange = (address: string): string | undefined => {
    const a = unmapped(address);
    const type = net.isIPv4(a) ? 'ipv4' : 'ipv6';
    return ranges.find((r) => r.list.check(a, type))?.cidr;
  };
  return {
    ranges: ranges.map((r) => r.cidr),
    deniedRange,
    async resolve(host) {
      const bare = host.replace(/^\[|\]$/g, '');
      const address = net.isIP(bare) ? bare : await lookup(bare);
      const range = deniedRange(address);
      if (range) throw new EgressDenied(host, address, range);
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

const withLoopback = new WeakMap<readonly string[], readonly string[]>();

/**
 * The policy of what tenants run — session browsers and apps: the configured ranges plus, unless
 * the operator allows it (`egressLoopback`), the host's loopback, where the engine's own port and
 * services bound to 127.0.0.1 (databases, admin UIs) listen. Kept apart from the configured
 * ranges because the engine's own OTLP exports use those and may go to a loopback collector.
 */
export function tenantEgressPolicyOf(cidrs: readonly string[], allowLoopback: boolean): EgressPolicy {
  if (allowLoopback) return egressPolicyOf(cidrs);
  let list = withLoopback.get(cidrs);
  if (!list) withLoopback.set(cidrs, (list = [...cidrs, ...LOOPBACK_RANGES]));
  return egressPolicyOf(list);
}

/** A policy that denies nothing (unjailed sessions, tests of the forwarder itself). */
export const OPEN_EGRESS: EgressPolicy = egressPolicy([]);
