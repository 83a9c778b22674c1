/**
 * Where the engine may send telemetry exports. The destination is chosen by a tenant (an
 * org-wide key), but the connection is the engine's own, so the operator decides: the egress
 * deny ranges (`--egress-deny`, cloud metadata by default) always apply, and an optional allow
 * list (`--otlp-allowed-hosts`, env BROWSERDECK_OTLP_ALLOWED_HOSTS: host names, `*.suffix`,
 * IP addresses or CIDR ranges) restricts endpoints further; unset, any host is allowed
 * (loopback and private addresses included: this is self-hosted).
 * Names are checked when a destination is saved; addresses on every connection through the
 * agent's `lookup` (so a name that later resolves elsewhere cannot slip past), and an IP literal
 * (which Node connects to without a lookup) before every batch, by `sendRefusal` (no DNS: the
 * lookup already resolves and checks a name on each connection).
 */
import dns from 'node:dns';
import net from 'node:net';
import type { EgressPolicy } from '../proxy-forwarder/egress-policy.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

export interface OtlpHostPolicy {
  /** Why `url` may not be used (a message for a 400), or undefined when it may. Resolves names only to check an allow list of ranges. */
  refusal(url: string): Promise<string | undefined>;
  /** Before a batch: what the agent's `lookup` cannot check (an IP literal) or need not resolve to refuse (a name outside a names-only list). */
  sendRefusal(url: string): string | undefined;
  /** A `lookup` for the exporter's agent: only addresses the policy allows for `host`. */
  lookupFor(host: string): (hostname: string, options: dns.LookupOptions, cb: LookupCallback) => void;
}

interface Entry {
  host?: string;
  suffix?: string;
  range?: net.BlockList;
}

function parseEntry(raw: string): Entry {
  const e = raw.trim().toLowerCase();
  const [addr, bits, extra] = e.replace(/^\[|\]$/g, '').split('/');
  const type = net.isIPv4(addr) ? 'ipv4' : net.isIPv6(addr) ? 'ipv6' : undefined;
  if (type) {
    const max = type === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max)
      throw new Error(`--otlp-allowed-hosts: '${raw}' is not an address range`);
    const range = new net.BlockList();
    range.addSubnet(addr, prefix, type);
    return { range };
  }
  if (e.startsWith('*.') && /^[a-z0-9.-]+$/.test(e.slice(2))) return { suffix: e.slice(1) };
  if (/^[a-z0-9.-]+$/.test(e)) return { host: e.replace(/\.$/, '') };
  throw new Error(`--otlp-allowed-hosts: '${raw}' is not a host name, *.suffix, address or CIDR range`);
}

function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

export function otlpHostPolicy(allowList: readonly string[], egress: EgressPolicy): OtlpHostPolicy {
  const entries = allowList.filter((s) => s.trim()).map(parseEntry);
  const ranges = entries.filter((e) => e.range);
  const byName = (host: string): boolean => entries.some((e) => e.host === host || (e.suffix && host.endsWith(e.suffix)));
  const inRanges = (address: string): boolean => {
    const a = unmapped(address);
    const type = net.isIPv4(a) ? 'ipv4' : 'ipv6';
    return ranges.some((e) => e.range!.check(a, type));
  };
  /** Why this address is refused for `host` (undefined: allowed). */
  const addressRefusal = (host: string, address: string): string | undefined => {
    const denied = egress.deniedRange(unmapped(address));
    if (denied) return `${host} (${address}) is in a range the engine's egress policy denies (${denied})`;
    if (entries.length && !byName(host) && !inRanges(address)) return `${host} (${address}) is not in the hosts this engine allows for telemetry export`;
    return undefined;
  };
  const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  /** The checks that need no DNS. */
  const sendRefusal = (url: string): string | undefined => {
    const host = hostOf(new URL(url));
    if (net.isIP(host)) return addressRefusal(host, host);
    if (entries.length && !byName(host) && !ranges.length) return `${host} is not in the hosts this engine allows for telemetry export`;
    return undefined;
  };

  return {
    sendRefusal,
    async refusal(url) {
      const cheap = sendRefusal(url);
      const host = hostOf(new URL(url));
      if (cheap || net.isIP(host)) return cheap;
      if (entries.length && !byName(host)) {
        // Only ranges could allow this name: it must resolve into one now (and on every connection).
        const all = await dns.promises.lookup(host, { all: true }).catch(() => []);
        if (!all.some((a) => !addressRefusal(host, a.address))) return `${host} does not resolve to an address this engine allows for telemetry export`;
      }
      return undefined;
    },
    lookupFor(host) {
      const h = host.replace(/^\[|\]$/g, '').toLowerCase();
      return (hostname, options, cb) => {
        dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return cb(err, '');
          const ok = addresses.filter((a) => !addressRefusal(h, a.address));
          if (!ok.length) {
            const why = addressRefusal(h, addresses[0]?.address ?? '') ?? `${h} has no allowed address`;
            return cb(Object.assign(new Error(why), { code: 'EOTLPDENIED' }), '');
          }
          if (options.all) cb(null, ok);
          else cb(null, ok[0].address, ok[0].family);
        });
      };
    },
  };
}
