import { describe, expect, it } from 'vitest';
import { burstDepth, nextLaunchEstimate } from './standby-depth.js';

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
});
