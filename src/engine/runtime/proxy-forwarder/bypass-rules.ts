/**
 * Which destinations skip the upstream proxy and connect directly. The forwarder decides this
 * (not Chromium's `--proxy-bypass-list`) so a live proxy change can change the rules too.
 *
 * - `bypass_hosts` entries: `example.com` (exact), `*.example.com` / `.example.com` (subdomains
 *   and the domain), other `*` wildcards, IP literals and CIDR ranges; an optional `:port`.
 * - Loopback destinations (localhost, 127/8, ::1) go direct — as Chromium does by default —
 *   unless the upstream proxy itself is on loopback: a remote proxy cannot reach this machine's
 *   loopback (and would reach its own instead), while a local one (a local proxy daemon, the
 *   test suite's proxy) can, and then routing through it is what the operator asked for.
 */
import net from 'node:net';

export interface BypassRules {
  matches(host: string, port: number): boolean;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1' || h.startsWith('::ffff:127.');
  return false;
}

function cidrMatcher(spec: string): ((host: string) => boolean) | undefined {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(spec);
  if (!m || !net.isIP(m[1])) return undefined;
  const list = new net.BlockList();
  list.addSubnet(m[1], Number(m[2]), net.isIPv6(m[1]) ? 'ipv6' : 'ipv4');
  return (host) => {
    const h = host.replace(/^\[|\]$/g, '');
    const family = net.isIP(h);
    return family !== 0 && list.check(h, family === 6 ? 'ipv6' : 'ipv4');
  };
}

function hostMatcher(pattern: string): (host: string) => boolean {
  const p = pattern.toLowerCase().replace(/^\[|\]$/g, '');
  if (p.startsWith('.')) return (h) => h === p.slice(1) || h.endsWith(p);
  if (p.startsWith('*.')) return (h) => h === p.slice(2) || h.endsWith(p.slice(1));
  if (p.includes('*')) {
    const re = new RegExp(
      '^' +
        p
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*') +
        '$',
    );
    return (h) => re.test(h);
  }
  return (h) => h === p;
}

function splitPattern(raw: string): { host: string; port?: number } {
  if (net.isIPv6(raw)) return { host: raw };
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : undefined };
  const m = /^(.*):(\d+)$/.exec(raw);
  return m ? { host: m[1], port: Number(m[2]) } : { host: raw };
}

export function bypassRules(entries: string[], upstreamHost: string): BypassRules {
  const rules = entries.map((raw) => {
    const cidr = cidrMatcher(raw);
    if (cidr) return { port: undefined, test: cidr };
    const { host: hostPart, port } = splitPattern(raw);
    return { port, test: hostMatcher(hostPart) };
  });
  const loopbackDirect = !isLoopbackHost(upstreamHost);
  return {
    matches(host, port) {
      const h = host
        .toLowerCase()
        .replace(/^\[|\]$/g, '')
        .replace(/\.$/, '');
      if (loopbackDirect && isLoopbackHost(h)) return true;
      return rules.some((r) => (r.port === undefined || r.port === port) && r.test(h));
    },
  };
}
