/**
 * This host's own addresses: every address of every interface (`os.networkInterfaces()`), IPv4
 * and IPv6, link-local included. Tenants may reach them no more than loopback — a service bound
 * to `0.0.0.0` or `::` (the engine itself with `--host 0.0.0.0`, a database, an admin UI)
 * answers on each of them (egress-policy.ts `tenantEgressPolicyOf`).
 *
 * Interfaces come and go (DHCP, VPNs, container bridges), so `watchHostAddresses` reads them at
 * start and again every few seconds on an unref'd timer, stopped with the engine: a new address
 * is denied within one poll. Polling, not netlink: Node has no netlink without a native module,
 * and one read is a single getifaddrs() call. A failed read keeps the last list (fails closed).
 */
import net from 'node:net';
import os from 'node:os';

export interface HostAddressSource {
  /** Whether `address` is one of this host's own, in any spelling (IPv4-mapped IPv6 included). */
  has(address: string): boolean;
}

/** What `os.networkInterfaces()` answers (injected in tests). */
export type InterfaceReader = () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;

/** How often the watcher re-reads the interfaces. */
export const HOST_ADDRESS_POLL_MS = 3_000;

/** A matcher over a fixed list; net.BlockList compares addresses, not strings (`fe80:0::1` is `fe80::1`, `::ffff:a.b.c.d` is `a.b.c.d`). */
function matcherOf(addresses: readonly string[]): (address: string) => boolean {
  const list = new net.BlockList();
  for (const a of addresses) {
    const type = net.isIPv4(a) ? 'ipv4' : net.isIPv6(a) ? 'ipv6' : undefined;
    if (type) list.addAddress(a, type);
  }
  return (address) => {
    const type = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
    return !!type && list.check(address, type);
  };
}

/** A fixed list of host addresses (tests, and a host whose list is known). */
export function hostAddressList(addresses: readonly string[]): HostAddressSource {
  return { has: matcherOf(addresses) };
}

function addressesOf(read: InterfaceReader): string[] {
  const out = new Set<string>();
  for (const infos of Object.values(read())) for (const i of infos ?? []) out.add(i.address.replace(/%.*$/, ''));
  return [...out].sort();
}

export interface HostAddresses extends HostAddressSource {
  /** The addresses now (for tests and logs; `/healthz` says only whether they are denied). */
  addresses(): readonly string[];
  /** Reads the interfaces now; true when the list changed. */
  refresh(): boolean;
  stop(): void;
}

/** Reads this host's addresses now and every `pollMs` after, until `stop()`. */
export function watchHostAddresses(read: InterfaceReader = os.networkInterfaces, pollMs = HOST_ADDRESS_POLL_MS): HostAddresses {
  let current: string[] = [];
  let has: (address: string) => boolean = () => false;
  const refresh = (): boolean => {
    let next: string[];
    try {
      next = addressesOf(read);
    } catch {
      return false;
    }
    if (next.join(',') === current.join(',')) return false;
    current = next;
    has = matcherOf(next);
    return true;
  };
  refresh();
  const timer = setInterval(refresh, pollMs);
  timer.unref();
  return {
    has: (address) => has(address),
    addresses: () => current,
    refresh,
    stop: () => clearInterval(timer),
  };
}
