import type os from 'node:os';
import { describe, expect, it } from 'vitest';
import { cpuIdleSampler } from './cpu-idle.js';

const cpu = (idle: number, user: number): os.CpuInfo => ({ model: 'x', speed: 1, times: { idle, user, nice: 0, sys: 0, irq: 0 } });

describe('cpuIdleSampler', () => {
  it('is the idle share of all cores between two calls; unknown on the first call or over too short an interval', () => {
    let now = [cpu(100, 100), cpu(100, 100)];
    const idle = cpuIdleSampler(() => now, 40);
    expect(idle()).toBeUndefined();
    // Core 1 idle 30 of 40, core 2 idle 10 of 40: 40 of 80.
    now = [cpu(130, 110), cpu(110, 130)];
    expect(idle()).toBe(0.5);
    expect(idle()).toBeUndefined();
    // 20 ms per core: too short, so it counts on into the next call (all busy: 0 of 80).
    now = [cpu(130, 130), cpu(110, 150)];
    expect(idle()).toBeUndefined();
    now = [cpu(130, 150), cpu(110, 170)];
    expect(idle()).toBe(0);
  });
});
