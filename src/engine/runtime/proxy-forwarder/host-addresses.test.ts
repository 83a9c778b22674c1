import type os from 'node:os';
import { describe, expect, it } from 'vitest';
import { hostAddressList, watchHostAddresses } from './host-addresses.js';

function iface(address: string, family: 'IPv4' | 'IPv6'): os.NetworkInterfaceInfo {
  const base = { address, netmask: family === 'IPv4' ? '255.255.255.0' : 'ffff:ffff:ffff:ffff::', mac: '02:00:00:00:00:01', internal: false, cidr: null };
  return family === 'IPv4' ? { ...base, family } : { ...base, family, scopeid: 2 };
}

describe('host addresses', () => {
  it('match addresses, not strings: other spellings and IPv4-mapped forms are the same address', () => {
    const list = hostAddressList(['192.0.2.10', 'fd00::10', 'not an address']);
    for (const a of ['192.0.2.10', '::ffff:192.0.2.10', '::ffff:c000:20a', 'fd00::10', 'FD00:0:0:0:0:0:0:10']) expect(list.has(a), a).toBe(true);
    for (const a of ['192.0.2.11', 'fd00::11', '', 'example.test']) expect(list.has(a), a).toBe(false);
  });

  it('are read at start from every interface, zone ids dropped', () => {
    const watched = watchHostAddresses(
      () => ({ lo: [iface('127.0.0.1', 'IPv4')], eth0: [iface('192.0.2.10', 'IPv4'), iface('fe80::1%eth0', 'IPv6')] }),
      60_000,
    );
    try {
      expect(watched.addresses()).toEqual(['127.0.0.1', '192.0.2.10', 'fe80::1']);
      expect(watched.has('fe80::1')).toBe(true);
    } finally {
      watched.stop();
    }
  });

  it('are re-read by the poll: an interface that appears later is seen without anyone asking', async () => {
    const interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = { lo: [iface('127.0.0.1', 'IPv4')] };
    const watched = watchHostAddresses(() => interfaces, 5);
    try {
      expect(watched.has('192.0.2.20')).toBe(false);
      interfaces.veth0 = [iface('192.0.2.20', 'IPv4')];
      await expect.poll(() => watched.has('192.0.2.20')).toBe(true);
    } finally {
      watched.stop();
    }
  });

  it('keep the last list when a read fails (fail closed)', () => {
    let fail = false;
    const watched = watchHostAddresses(() => {
      if (fail) throw new Error('EMFILE');
      return { eth0: [iface('192.0.2.10', 'IPv4')] };
    }, 60_000);
    try {
      fail = true;
      expect(watched.refresh()).toBe(false);
      expect(watched.has('192.0.2.10')).toBe(true);
    } finally {
      watched.stop();
    }
  });
});
