import { describe, expect, it } from 'vitest';
import { checkPidsLimits, defaultPidsLimits, maxEvents } from './pids-group.js';

describe('defaultPidsLimits', () => {
  it('gives all tenants a quarter of the pid space, each session 2048', () => {
    expect(defaultPidsLimits(32_768)).toEqual({ perSession: 2048, perEngine: 8192 });
    // systemd hosts raise pid_max to 2^22: the engine bound stays at 65536.
    expect(defaultPidsLimits(4_194_304)).toEqual({ perSession: 2048, perEngine: 65_536 });
    // A tiny pid space: still a usable engine, a session never above it.
    expect(defaultPidsLimits(4096)).toEqual({ perSession: 1024, perEngine: 1024 });
  });
});

describe('checkPidsLimits', () => {
  it('accepts a session bound below the engine bound below pid_max', () => {
    expect(checkPidsLimits({ perSession: 64, perEngine: 8192 }, 32_768)).toEqual({ perSession: 64, perEngine: 8192 });
  });

  it('refuses what would not bound anything', () => {
    expect(() => checkPidsLimits({ perSession: 4096, perEngine: 2048 }, 32_768)).toThrow(/exceeds --pids-per-engine/);
    expect(() => checkPidsLimits({ perSession: 64, perEngine: 32_768 }, 32_768)).toThrow(/pid_max 32768/);
    expect(() => checkPidsLimits({ perSession: Number.NaN, perEngine: 8192 }, 32_768)).toThrow(/--pids-per-session/);
    expect(() => checkPidsLimits({ perSession: 8, perEngine: 8192 }, 32_768)).toThrow(/≥ 16/);
  });
});

describe('maxEvents', () => {
  it("reads the counter of forks the limit refused (v1 and v2's pids.events)", () => {
    expect(maxEvents('max 0\n')).toBe(0);
    expect(maxEvents('max 17\n')).toBe(17);
    expect(maxEvents('max 3\nmax.imposed 3\n')).toBe(3);
    expect(maxEvents('')).toBe(0);
  });
});
