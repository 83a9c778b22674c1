/**
 * A session's `network.private_hosts` (Kernel API 0.89): destinations its forwarder connects to
 * directly instead of through the session's upstream proxy. Kernel means "reached through the
 * session's own network rather than managed egress"; in Browserdeck the managed egress is the
 * upstream proxy, so a match simply skips it. The engine's egress policy is not affected: a
 * direct connection is resolved and checked like any other (local-forwarder.ts).
 *
 * This file parses and matches the entries; it lives beside the forwarder (runtime) because the
 * forwarder matches every request against them, and it throws a plain PrivateHostError naming
 * the entry so the domain can answer a 400 for that field. Rules (Kernel's, where it states them):
 *
 * - hostnames: exact (`wiki.corp`, also single labels such as `intranet`), or one leading `*.`
 *   over a suffix of at least two labels that is not a public suffix (`*.corp.example.com`, not
 *   `*.com`, `*.co.uk` or `*.github.io` — tldts' copy of the Public Suffix List, private section
 *   included). A wildcard covers subdomains at any depth, not the suffix itself. Not resolved.
 * - exact IP addresses: IPv4 as is, IPv6 in brackets (`[fd00::1]`). Any unicast address is
 *   accepted (Kernel states range limits only for CIDRs; a VPN peer may well be public).
 * - CIDR ranges: canonical (no host bits set), IPv6 without brackets, and inside the default
 *   private ranges below — so public, loopback, link-local and unspecified ranges are refused.
 * - hostnames and exact IPs may carry `:port` (then only that port matches); CIDRs may not.
 * - IP and CIDR entries match only destinations written as an IP literal, never a hostname
 *   after resolution (as on Kernel: a private DNS name has to be listed by name).
 */
import net from 'node:net';
import { getPublicSuffix } from 'tldts';
import { hostNamePattern } from './host-name.js';

/** What applies when a session gives no `private_hosts` (Kernel's defaults). */
export const DEFAULT_PRIVATE_HOSTS: readonly string[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7'];

export class PrivateHostError extends Error {
  constructor(
    readonly index: number,
    readonly entry: string,
    readonly reason: string,
  ) {
    super(`'${entry}' ${reason}`);
  }
}

export interface PrivateHosts {
  /** Whether a destination (as the browser asked for it: name or IP literal, and port) is private. */
  matches(host: string, port: number): boolean;
}

type Rule =
  | { kind: 'name'; name: string; port?: number }
  | { kind: 'suffix'; suffix: string; port?: number }
  | { kind: 'ip'; list: net.BlockList; port?: number }
  | { kind: 'cidr'; list: net.BlockList };

const PRIVATE_RANGES = DEFAULT_PRIVATE_HOSTS.map((cidr) => {
  const [addr, bits] = cidr.split('/');
  const family = net.isIPv4(addr) ? 'ipv4' : 'ipv6';
  const list = new net.BlockList();
  list.addSubnet(addr, Number(bits), family);
  return { list, family, prefix: Number(bits) };
});

function familyOf(addr: string): 'ipv4' | 'ipv6' {
  return net.isIPv4(addr) ? 'ipv4' : 'ipv6';
}

/** The address as a number (IPv6 may end in dotted IPv4), for the host-bits check. */
function addressBits(addr: string): bigint {
  if (net.isIPv4(addr)) return addr.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n);
  let text = addr;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = Number(addressBits(v4[1]));
    text = text.slice(0, -v4[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function parsePort(text: string): number | undefined {
  const port = /^[1-9]\d{0,4}$/.test(text) ? Number(text) : NaN;
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** Unspecified, multicast, reserved and broadcast addresses: nothing a URL can point at. */
const NOT_UNICAST = new net.BlockList();
NOT_UNICAST.addSubnet('0.0.0.0', 8, 'ipv4');
NOT_UNICAST.addSubnet('224.0.0.0', 3, 'ipv4');
NOT_UNICAST.addAddress('::', 'ipv6');
NOT_UNICAST.addSubnet('ff00::', 8, 'ipv6');

function unicastProblem(addr: string): string | undefined {
  return NOT_UNICAST.check(addr, familyOf(addr)) ? 'is not a unicast address a browser could connect to' : undefined;
}

function parseCidr(entry: string): Rule {
  const slash = entry.indexOf('/');
  const addr = entry.slice(0, slash);
  const bitsText = entry.slice(slash + 1);
  if (addr.startsWith('[')) throw new Error(`is an IPv6 range written in brackets: write it without them (e.g. fd00::/8)`);
  if (/^\d+:\d+$/.test(bitsText) || /\]:\d+$/.test(bitsText)) throw new Error('is a range with a port: CIDR ranges cannot carry a port');
  if (!net.isIP(addr)) throw new Error('is not a hostname, IP address or CIDR range (a URL or path is not an entry)');
  if (addr.includes('%') || !/^(0|[1-9]\d{0,2})$/.test(bitsText)) throw new Error('is not a CIDR range (such as 10.0.0.0/8 or fd00::/8)');
  const family = familyOf(addr);
  const max = family === 'ipv4' ? 32 : 128;
  const prefix = Number(bitsText);
  if (prefix > max) throw new Error(`has a prefix length above ${max}`);
  const bits = addressBits(addr);
  const hostMask = (1n << BigInt(max - prefix)) - 1n;
  if ((bits & hostMask) !== 0n) throw new Error(`is not canonical: it sets bits after the /${prefix} prefix (the range starts at its network address)`);
  if (!PRIVATE_RANGES.some((r) => r.family === family && prefix >= r.prefix && r.list.check(addr, family))) {
    throw new Error(
      `is not inside the private ranges (${DEFAULT_PRIVATE_HOSTS.join(', ')}): public, loopback, link-local and unspecified ranges cannot be private hosts`,
    );
  }
  const list = new net.BlockList();
  list.addSubnet(addr, prefix, family);
  return { kind: 'cidr', list };
}

function parseHostname(host: string, port: number | undefined): Rule {
  const { wildcard, ascii } = hostNamePattern(host, 'a hostname, IP address or CIDR range');
  if (!wildcard) return { kind: 'name', name: ascii, port };
  if (!ascii.includes('.')) throw new Error('is a wildcard over a single label: the suffix after "*." needs at least two labels');
  if (getPublicSuffix(ascii, { allowPrivateDomains: true }) === ascii)
    throw new Error(`is a wildcard over the public suffix '${ascii}': it would cover every site registered under it`);
  return { kind: 'suffix', suffix: '.' + ascii, port };
}

function parseEntry(raw: string): Rule {
  if (!raw) throw new Error('is empty');
  if (/\s/.test(raw)) throw new Error('contains whitespace');
  const entry = raw.toLowerCase();
  if (entry.includes('/')) return parseCidr(entry);
  if (net.isIPv6(entry)) throw new Error(`is an IPv6 address without brackets: write [${entry}]`);
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const [, addr, portText] = bracketed;
    if (!net.isIPv6(addr) || addr.includes('%')) throw new Error('is not an IPv6 address in brackets (such as [fd00::1])');
    const port = portText === undefined ? undefined : parsePort(portText);
    if (portText !== undefined && port === undefined) throw new Error('has an invalid port (1-65535)');
    const problem = unicastProblem(addr);
    if (problem) throw new Error(problem);
    const list = new net.BlockList();
    list.addAddress(addr, 'ipv6');
    return { kind: 'ip', list, port };
  }
  const m = /^(.*?)(?::([^:]*))?$/.exec(entry)!;
  const host = m[1];
  const port = m[2] === undefined ? undefined : parsePort(m[2]);
  if (m[2] !== undefined && port === undefined) throw new Error('has an invalid port (1-65535)');
  if (net.isIPv4(host)) {
    const problem = unicastProblem(host);
    if (problem) throw new Error(problem);
    const list = new net.BlockList();
    list.addAddress(host, 'ipv4');
    return { kind: 'ip', list, port };
  }
  return parseHostname(host, port);
}

/** Parses a list (each entry checked); throws PrivateHostError for the first bad one. */
export function privateHosts(entries: readonly string[]): PrivateHosts {
  const rules = entries.map((entry, i) => {
    try {
      return parseEntry(entry);
    } catch (err) {
      throw new PrivateHostError(i, entry, (err as Error).message);
    }
  });
  return {
    matches(host, port) {
      const h = host
        .toLowerCase()
        .replace(/^\[|\]$/g, '')
        .replace(/\.$/, '');
      const family = net.isIP(h);
      if (family) {
        const type = family === 4 ? 'ipv4' : 'ipv6';
        return rules.some((r) => (r.kind === 'cidr' || (r.kind === 'ip' && (r.port === undefined || r.port === port))) && r.list.check(h, type));
      }
      return rules.some((r) => {
        if (r.kind === 'name') return h === r.name && (r.port === undefined || r.port === port);
        if (r.kind === 'suffix') return h.endsWith(r.suffix) && (r.port === undefined || r.port === port);
        return false;
      });
    },
  };
}

/** Nothing is private: a route without private hosts. */
export const NO_PRIVATE_HOSTS: PrivateHosts = { matches: () => false };
