import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/engine/config.js';

describe('egressLoopback', () => {
  it('is off unless the option or BROWSERDECK_EGRESS_ALLOW_LOOPBACK=1 turns it on; the option wins', () => {
    expect(resolveConfig({ env: {} }).egressLoopback).toBe(false);
    expect(resolveConfig({ env: { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: '1' } }).egressLoopback).toBe(true);
    expect(resolveConfig({ env: { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: 'yes' } }).egressLoopback).toBe(false);
    expect(resolveConfig({ env: {}, egressLoopback: true }).egressLoopback).toBe(true);
    expect(resolveConfig({ env: { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: '1' }, egressLoopback: false }).egressLoopback).toBe(false);
  });
});
