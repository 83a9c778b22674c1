import { describe, expect, it } from 'vitest';
import { burstDepth, nextLaunchEstimate, nextLaunchLimit } from './standby-depth.js';

describe('standby depth', () => {
  it('is the most creates within one launch time of each other', () => {
    expect(burstDepth([], 1500)).toBe(0);
    // A burst of ten at once wants ten.
    expect(
      burstDepth(
        Array.from({ length: 10 }, () => 5000),
        1500,
      ),
    ).toBe(10);
    // Back to back every 400 ms with 1.5 s launches: four within any launch time.
    expect(
      burstDepth(
        Array.from({ length: 40 }, (_, i) => i * 400),
        1500,
      ),
    ).toBe(4);
    // One create a minute wants one; the order of the times does not matter.
    expect(burstDepth([120_000, 0, 60_000], 1500)).toBe(1);
  });

  it('follows the measured launch time', () => {
    expect(nextLaunchEstimate(1500, 1500)).toBe(1500);
    expect(nextLaunchEstimate(1000, 2000)).toBeGreaterThan(1000);
    expect(nextLaunchEstimate(1000, 2000)).toBeLessThan(2000);
  });

  it('runs one launch more at once only while creates wait and the CPUs have idle time, one fewer when they are saturated', () => {
    // Creates waited, CPUs half idle: one more, up to the ceiling.
    expect(nextLaunchLimit(2, { idle: 0.5, waited: true }, 2, 4)).toBe(3);
    expect(nextLaunchLimit(4, { idle: 0.5, waited: true }, 2, 4)).toBe(4);
    // Idle CPUs but nobody waited (the standby keeps up): no change.
    expect(nextLaunchLimit(3, { idle: 0.5, waited: false }, 2, 4)).toBe(3);
    // Waited, but the CPUs are busy (a little idle): more launches would only share the same CPUs.
    expect(nextLaunchLimit(3, { idle: 0.1, waited: true }, 2, 4)).toBe(3);
    // Saturated: one fewer, never below the floor.
    expect(nextLaunchLimit(3, { idle: 0.01, waited: true }, 2, 4)).toBe(2);
    expect(nextLaunchLimit(2, { idle: 0, waited: true }, 2, 4)).toBe(2);
    // A fixed limit (--standby-launches given: floor = ceiling) never moves.
    expect(nextLaunchLimit(2, { idle: 0.9, waited: true }, 2, 2)).toBe(2);
  });
});
