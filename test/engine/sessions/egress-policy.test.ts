/**
 * The egress policy on its own: CIDR parsing (a bad range fails the engine's start, naming it),
 * IPv4, IPv6 and IPv4-mapped IPv6 matching, and names checked on the address they resolve to —
 * the address that is then connected to, so a name cannot resolve one way for the check and
 * another for the connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EgressDenied, egressPolicy } from '../../../src/engine/runtime/proxy-forwarder/egress-policy.js';
import { createEngine } from '../../../src/engine/engine.js';
import { DEFAULT_EGRESS_DENY } from '../../../src/engine/config.js';

describe('egress policy', () => {
  it('matches IPv4, IPv6 and IPv4-mapped addresses against the default ranges', () => {
    const p = egressPolicy(DEFAULT_EGRESS_DENY);
    expect(p.deniedRange('169.254.169.254')).toBe('169.254.0.0/16');
    expect(p.deniedRange('::ffff:169.254.169.254')).toBe('169.254.0.0/16');
    expect(p.deniedRange('fd00:ec2::254')).toBe('fd00:ec2::254/128');
    expect(p.deniedRange('fd00:ec2::255')).toBeUndefined();
    expect(p.deniedRange('127.0.0.1')).toBeUndefined();
    expect(p.deniedRange('8.8.8.8')).toBeUndefined();
  });

  it('refuses malformed ranges by name', () => {
    for (const bad of ['10.0.0.0/33', 'not-an-ip/8', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/x'])
      expect(() => egressPolicy([bad]), bad).toThrow(`'${bad}' is not an address range`);
    expect(egressPolicy(['10.1.2.3']).deniedRange('10.1.2.3')).toBe('10.1.2.3');
  });

  it('checks the resolved address, connects to exactly that one, and denies a name pointing into a range', async () => {
    let calls = 0;
    // A rebinding resolver: public the first time, metadata the next.
    const rebinding = async () => (calls++ === 0 ? '93.184.216.34' : '169.254.169.254');
    const p = egressPolicy(DEFAULT_EGRESS_DENY, rebinding);
    expect(await p.resolve('rebind.example')).toBe('93.184.216.34');
    const denied = await p.resolve('rebind.example').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(EgressDenied);
    expect((denied as EgressDenied).message).toBe("egress to rebind.example (169.254.169.254) is denied by the engine's egress policy (169.254.0.0/16)");
    expect(calls).toBe(2);
    // Literal addresses are not looked up at all.
    await expect(p.resolve('[fd00:ec2::254]')).rejects.toBeInstanceOf(EgressDenied);
    expect(calls).toBe(2);
  });

  it('a malformed --egress-deny fails the engine start, not the first session', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-test-'));
    const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {}, egressDeny: ['169.254.0.0/16', '300.1.1.1/8'] });
    try {
      await expect(engine.start()).rejects.toThrow("'300.1.1.1/8' is not an address range");
    } finally {
      await engine.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
