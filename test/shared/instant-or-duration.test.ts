/**
 * The shared time-window grammar used by telemetry, deployment and invocation `since`/`until`:
 * both forms, the variants clients send, and values that must be refused.
 */
import { describe, expect, it } from 'vitest';
import { parseInstantOrDuration } from '../../src/shared/instant-or-duration.js';

const now = Date.parse('2026-01-02T03:04:05.000Z');

describe('parseInstantOrDuration', () => {
  it('counts Go-style durations back from now', () => {
    expect(parseInstantOrDuration('5m', now)).toBe(now - 300_000);
    expect(parseInstantOrDuration('1h30m', now)).toBe(now - 5_400_000);
    expect(parseInstantOrDuration('1.5s', now)).toBe(now - 1500);
    expect(parseInstantOrDuration('250ms', now)).toBe(now - 250);
    expect(parseInstantOrDuration('2000us', now)).toBe(now - 2);
    expect(parseInstantOrDuration(' 1d ', now)).toBe(now - 86_400_000);
  });

  it('reads RFC 3339 timestamps, with or without seconds, nanosecond digits cut', () => {
    expect(parseInstantOrDuration('2025-01-02T15:04:05Z', now)).toBe(Date.parse('2025-01-02T15:04:05Z'));
    expect(parseInstantOrDuration('2025-01-02t15:04:05.123456789z', now)).toBe(Date.parse('2025-01-02T15:04:05.123Z'));
    expect(parseInstantOrDuration('2025-01-02 15:04:05+02:00', now)).toBe(Date.parse('2025-01-02T13:04:05Z'));
    expect(parseInstantOrDuration('2025-01-02T15:04Z', now)).toBe(Date.parse('2025-01-02T15:04:00Z'));
  });

  it('refuses anything else', () => {
    for (const bad of ['', 'yesterday', '5x', 'm5', '5', '2025-01-02', '2025-01-02T15:04:05', '2025-13-45T99:99:99Z', '-5m'])
      expect(parseInstantOrDuration(bad, now), bad).toBeUndefined();
  });
});
