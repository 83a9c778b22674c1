import { describe, expect, it } from 'vitest';
import { EgressDenied, egressPolicy, egressPolicyOf, LOOPBACK_RANGES, OPEN_EGRESS, tenantEgressPolicyOf } from './egress-policy.js';

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
    const tenant = tenantEgressPolicyOf(configured, false);
    expect(tenant.ranges).toEqual(['169.254.0.0/16', ...LOOPBACK_RANGES]);
    expect(tenantEgressPolicyOf(configured, false)).toBe(tenant);
    expect(tenantEgressPolicyOf(configured, true)).toBe(egressPolicyOf(configured));
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
      expect(tenantEgressPolicyOf(configured, true).deniedRange(address), address).toBeUndefined();
    }
    for (const allowed of ['128.0.0.1', '192.0.2.2', '::2', 'fe80::1', '10.0.0.1']) expect(tenant.deniedRange(allowed), allowed).toBeUndefined();
    await expect(tenant.resolve('[::1]')).rejects.toThrow("egress to [::1] (::1) is denied by the engine's egress policy (::1/128)");
  });
});
