import { describe, expect, it } from 'vitest';
import { parseInstantOrDuration } from './instant-or-duration.js';

const NOW = Date.parse('2026-01-02T03:04:05.678Z');

describe('parseInstantOrDuration', () => {
  it('counts Go-style durations back from now, compound and fractional', () => {
    expect(parseInstantOrDuration('90s', NOW)).toBe(NOW - 90_000);
    expect(parseInstantOrDuration('1h30m', NOW)).toBe(NOW - 5_400_000);
    expect(parseInstantOrDuration('1.5h', NOW)).toBe(NOW - 5_400_000);
    expect(parseInstantOrDuration('1.5s', NOW)).toBe(NOW - 1500);
    expect(parseInstantOrDuration('250ms', NOW)).toBe(NOW - 250);
    expect(parseInstantOrDuration('2d', NOW)).toBe(NOW - 172_800_000);
    expect(parseInstantOrDuration(' 5m ', NOW)).toBe(NOW - 300_000);
    expect(parseInstantOrDuration('1000us', NOW)).toBe(NOW - 1);
    expect(parseInstantOrDuration('1000µs', NOW)).toBe(NOW - 1);
    expect(parseInstantOrDuration('1000000ns', NOW)).toBe(NOW - 1);
  });

  it('reads RFC 3339 timestamps with offsets, lowercase separators and cut nanoseconds', () => {
    expect(parseInstantOrDuration('2026-01-01T00:00:00Z', NOW)).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseInstantOrDuration('2026-01-01t01:00:00+01:00', NOW)).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseInstantOrDuration('2026-01-01 00:00z', NOW)).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseInstantOrDuration('2026-01-01T00:00:00.123456789Z', NOW)).toBe(Date.parse('2026-01-01T00:00:00.123Z'));
  });

  it('is undefined for anything else', () => {
    for (const v of ['', '5', 'm', '5 m', '-5m', '5y', '1h-30m', '5x', 'm5', 'now', '2026-01-01', '2026-01-01T00:00:00', '2026-13-45T99:99:99Z', 'yesterday']) {
      expect(parseInstantOrDuration(v, NOW), v).toBeUndefined();
    }
  });
});
