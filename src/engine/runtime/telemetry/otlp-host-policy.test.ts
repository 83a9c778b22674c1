import dns from 'node:dns';
import { describe, expect, it } from 'vitest';
import { otlpHostPolicy } from './otlp-host-policy.js';
import { egressPolicyOf } from '../proxy-forwarder/egress-policy.js';

/** The exporter agent's lookup for `host`, as Node's net.connect calls it. */
function lookup(policy: ReturnType<typeof otlpHostPolicy>, host: string): Promise<{ address?: string; code?: string; message?: string }> {
  return new Promise((resolve) =>
    policy.lookupFor(host)(host, { family: 4 } as dns.LookupOptions, (err, address) =>
      resolve(err ? { code: err.code, message: err.message } : { address: address as string }),
    ),
  );
}

describe('OTLP host policy', () => {
  it('checks an IP literal before a batch (no lookup happens for it) and a name on every connection', async () => {
    const policy = otlpHostPolicy([], egressPolicyOf(['169.254.0.0/16', '127.0.0.0/8']));
    expect(policy.sendRefusal('http://169.254.169.254:4318')).toMatch(/egress policy denies \(169\.254\.0\.0\/16\)/);
    expect(policy.sendRefusal('http://10.0.0.1:4318')).toBeUndefined();
    // A name is left to the connection's lookup: nothing resolved before the batch.
    expect(policy.sendRefusal('http://localhost:4318')).toBeUndefined();
    const denied = await lookup(policy, 'localhost');
    expect(denied.code).toBe('EOTLPDENIED');
    expect(denied.message).toMatch(/localhost \(127\.0\.0\.1\) is in a range the engine's egress policy denies/);
    expect(await policy.refusal('http://127.0.0.1:4318')).toMatch(/egress policy denies/);
  });

  it('an allow list: names refused without DNS, ranges checked against what a name resolves to', async () => {
    const names = otlpHostPolicy(['collector.example.test', '*.otel.test'], egressPolicyOf([]));
    expect(names.sendRefusal('https://a.otel.test')).toBeUndefined();
    expect(names.sendRefusal('https://collector.example.test')).toBeUndefined();
    expect(names.sendRefusal('https://elsewhere.test')).toMatch(/not in the hosts this engine allows/);
    expect(await names.refusal('https://elsewhere.test')).toMatch(/not in the hosts this engine allows/);

    const ranges = otlpHostPolicy(['127.0.0.0/8'], egressPolicyOf([]));
    expect(ranges.sendRefusal('http://localhost:4318')).toBeUndefined();
    expect(await ranges.refusal('http://localhost:4318')).toBeUndefined();
    expect((await lookup(ranges, 'localhost')).address).toBe('127.0.0.1');
    expect(ranges.sendRefusal('http://10.0.0.1:4318')).toMatch(/not in the hosts this engine allows/);
    expect(() => otlpHostPolicy(['10.0.0.0/33'], egressPolicyOf([]))).toThrow(/not an address range/);
  });
});
