import os from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  EgressDenied,
  egressPolicy,
  egressPolicyOf,
  LOOPBACK_RANGES,
  OPEN_EGRESS,
  tenantEgressPolicyOf,
  THIS_HOST_ADDRESS,
  THIS_HOST_HINT,
} from './egress-policy.js';
import { hostAddressList, watchHostAddresses } from './host-addresses.js';

describe('egressPolicy', () => {
  const policy = egressPolicy(
    ['169.254.0.0/16', '10.0.0.0/8', 'fd00::/8', '192.0.2.7'],
    async (host) => ({ 'metadata.test': '169.254.169.254', 'ok.test': '93.184.216.34', 'v6.test': 'fd12::1' })[host] ?? '203.0.113.1',
  );

  it('finds the denied range of an address, IPv4-mapped IPv6 included', () => {
    expect(policy.deniedRange('169.254.169.254')).toBe('169.254.0.0/16');
    expect(policy.deniedRange('::ffff:169.254.169.254')).toBe('169.254.0.0/16');
    expect(policy.deniedRange('::FFFF:10.1.2.3')).toBe('10.0.0.0/8');
    expect(policy.deniedRange('fd00::1')).toBe('fd00::/8');
    expect(policy.deniedRange('192.0.2.7')).toBe('192.0.2.7');
    expect(policy.deniedRange('192.0.2.8')).toBeUndefined();
    expect(policy.deniedRange('11.0.0.1')).toBeUndefined();
    expect(policy.deniedRange('fe80::1')).toBeUndefined();
  });

  it('resolves a name once and checks the address it resolved to', async () => {
    await expect(policy.resolve('ok.test')).resolves.toBe('93.184.216.34');
    await expect(policy.resolve('metadata.test')).rejects.toThrow(new EgressDenied('metadata.test', '169.254.169.254', '169.254.0.0/16'));
    await expect(policy.resolve('v6.test')).rejects.toBeInstanceOf(EgressDenied);
  });

  it('checks IP literals without a lookup, bracketed IPv6 too', async () => {
    const noLookup = egressPolicy(['10.0.0.0/8', 'fd00::/8'], () => Promise.reject(new Error('looked up')));
    await expect(noLookup.resolve('10.9.9.9')).rejects.toThrow(/denied by the engine's egress policy \(10\.0\.0\.0\/8\)/);
    await expect(noLookup.resolve('[fd00::5]')).rejects.toBeInstanceOf(EgressDenied);
    await expect(noLookup.resolve('8.8.8.8')).resolves.toBe('8.8.8.8');
  });

  it('refuses malformed ranges, naming the entry', () => {
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'example.com/8', '10.0.0.0/8/1', '10.0.0.0/x', '10.0.0/8', '']) {
      expect(() => egressPolicy([bad]), bad).toThrow(`'${bad}' is not an address range`);
    }
  });

  it('parses a configured list once, and the open policy denies nothing', async () => {
    const cidrs = ['10.0.0.0/8'];
    expect(egressPolicyOf(cidrs)).toBe(egressPolicyOf(cidrs));
    expect(egressPolicyOf(['10.0.0.0/8'])).not.toBe(egressPolicyOf(cidrs));
    expect(OPEN_EGRESS.ranges).toEqual([]);
    await expect(OPEN_EGRESS.resolve('127.0.0.1')).resolves.toBe('127.0.0.1');
  });

  it("tenants' policy adds the host's loopback unless allowed, in every spelling of it", async () => {
    const configured = ['169.254.0.0/16'];
    const tenant = tenantEgressPolicyOf(configured, false, hostAddressList([]));
    expect(tenant.ranges).toEqual(['169.254.0.0/16', ...LOOPBACK_RANGES]);
    expect(tenantEgressPolicyOf(configured, true, hostAddressList([]))).toBe(egressPolicyOf(configured));
    const cases: Array<[string, string]> = [
      ['127.0.0.1', '127.0.0.0/8'],
      ['127.1.2.3', '127.0.0.0/8'],
      ['::ffff:127.0.0.1', '127.0.0.0/8'],
      ['::ffff:7f00:1', '127.0.0.0/8'], // how the URL parser writes [::ffff:127.0.0.1]
      ['::1', '::1/128'],
      ['0:0:0:0:0:0:0:1', '::1/128'],
      ['0.0.0.0', '0.0.0.0/8'],
      ['::ffff:0.0.0.0', '0.0.0.0/8'],
      ['::', '::/128'],
    ];
    for (const [address, range] of cases) {
      expect(tenant.deniedRange(address), address).toBe(range);
      expect(tenantEgressPolicyOf(configured, true, hostAddressList([])).deniedRange(address), address).toBeUndefined();
    }
    for (const allowed of ['128.0.0.1', '192.0.2.2', '::2', 'fe80::1', '10.0.0.1']) expect(tenant.deniedRange(allowed), allowed).toBeUndefined();
    await expect(tenant.resolve('[::1]')).rejects.toThrow("egress to [::1] (::1) is denied by the engine's egress policy (::1/128)");
  });
});

describe("tenants' policy and this host's own addresses", () => {
  // What os.networkInterfaces() might list on a host: a LAN address, a ULA and a link-local one.
  const HOST = ['10.213.0.2', 'fd00:213::2', 'fe80::fc:ff:fe00:1'];
  const configured = ['169.254.0.0/16'];
  const tenant = tenantEgressPolicyOf(configured, false, hostAddressList(HOST));
  /** What a refusal names as the "range" of a host address (written out: an export missing on the old code must not pass as undefined). */
  const OWN = "this host's own address";
  it('names a host address as such', () => expect(THIS_HOST_ADDRESS).toBe(OWN));

  it('denies every host address, v4 and v6, in any spelling and IPv4-mapped, and names the flag that opens it', async () => {
    for (const address of [
      '10.213.0.2',
      '::ffff:10.213.0.2',
      '::FFFF:10.213.0.2',
      '::ffff:ad5:2', // how the URL parser writes [::ffff:10.213.0.2]
      'fd00:213::2',
      'FD00:213:0:0:0:0:0:2',
      'fe80::fc:ff:fe00:1',
      'fe80:0:0:0:fc:ff:fe00:1',
    ])
      expect(tenant.deniedRange(address), address).toBe(OWN);
    // Its neighbours are not this host.
    for (const other of ['10.213.0.1', '10.213.0.3', '::ffff:10.213.0.3', 'fd00:213::3', 'fe80::1', '8.8.8.8'])
      expect(tenant.deniedRange(other), other).toBeUndefined();
    const refused = await tenant.resolve('[::ffff:10.213.0.2]').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EgressDenied);
    expect((refused as EgressDenied).message).toBe(
      `egress to [::ffff:10.213.0.2] (::ffff:10.213.0.2) is denied by the engine's egress policy (${OWN}); ${THIS_HOST_HINT}`,
    );
    expect(THIS_HOST_HINT).toContain('--egress-allow-loopback');
    // A loopback refusal names the same flag; a configured range's does not (the flag does not open it).
    await expect(tenant.resolve('127.0.0.1')).rejects.toThrow(`(127.0.0.0/8); ${THIS_HOST_HINT}`);
    expect(tenant.denial('169.254.169.254', '169.254.169.254')?.message).toBe(
      "egress to 169.254.169.254 (169.254.169.254) is denied by the engine's egress policy (169.254.0.0/16)",
    );
  });

  it('denies a name resolving to a host address (checked after resolution, like loopback)', async () => {
    const names: Record<string, string> = { 'me.test': 'fd00:213::2', 'lan.test': '10.213.0.2', 'away.test': '93.184.216.34' };
    const viaNames = egressPolicy(configured, async (h) => names[h], { ranges: LOOPBACK_RANGES, addresses: hostAddressList(HOST), hint: THIS_HOST_HINT });
    await expect(viaNames.resolve('me.test')).rejects.toThrow(`egress to me.test (fd00:213::2) is denied by the engine's egress policy (${OWN})`);
    await expect(viaNames.resolve('lan.test')).rejects.toBeInstanceOf(EgressDenied);
    await expect(viaNames.resolve('away.test')).resolves.toBe('93.184.216.34');
  });

  it('a configured range that holds a host address is reported as that range', () => {
    const both = tenantEgressPolicyOf(['10.0.0.0/8'], false, hostAddressList(HOST));
    expect(both.deniedRange('10.213.0.2')).toBe('10.0.0.0/8');
    expect(both.denial('x', '10.213.0.2')?.hint).toBeUndefined();
  });

  it('with the flag (this host allowed), host addresses and loopback pass', async () => {
    const open = tenantEgressPolicyOf(configured, true, hostAddressList(HOST));
    for (const address of [...HOST, '::ffff:10.213.0.2', '127.0.0.1', '::1']) expect(open.deniedRange(address), address).toBeUndefined();
    await expect(open.resolve('10.213.0.2')).resolves.toBe('10.213.0.2');
    // The configured ranges still hold.
    expect(open.deniedRange('169.254.169.254')).toBe('169.254.0.0/16');
  });

  it('follows the interfaces: an address added later is denied once read, one removed is no longer', () => {
    const interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = { lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)] };
    const watched = watchHostAddresses(() => interfaces, 60_000);
    try {
      const policy = tenantEgressPolicyOf(configured, false, watched);
      expect(policy.deniedRange('10.213.0.2')).toBeUndefined();
      interfaces.veth0 = [iface('10.213.0.2', 'IPv4'), iface('fd00:213::2', 'IPv6')];
      expect(watched.refresh()).toBe(true);
      expect(policy.deniedRange('10.213.0.2')).toBe(OWN);
      expect(policy.deniedRange('::ffff:10.213.0.2')).toBe(OWN);
      expect(policy.deniedRange('fd00:213::2')).toBe(OWN);
      delete interfaces.veth0;
      expect(watched.refresh()).toBe(true);
      expect(policy.deniedRange('10.213.0.2')).toBeUndefined();
      expect(watched.refresh()).toBe(false);
    } finally {
      watched.stop();
    }
  });
});

function iface(address: string, family: 'IPv4' | 'IPv6', internal = false): os.NetworkInterfaceInfo {
  const base = { address, netmask: family === 'IPv4' ? '255.255.255.0' : 'ffff:ffff:ffff:ffff::', mac: '02:00:00:00:00:01', internal, cidr: null };
  return family === 'IPv4' ? { ...base, family } : { ...base, family, scopeid: 0 };
}
