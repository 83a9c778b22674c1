import { describe, expect, it } from 'vitest';
import { endedByCaller, endedReasonOf } from './session-end-cause.js';

describe('session end cause', () => {
  it('shows the reason without its detail', () => {
    expect(endedReasonOf('browser_crashed: gave up after 3 restarts')).toBe('browser_crashed');
    expect(endedReasonOf('deleted')).toBe('deleted');
    expect(endedReasonOf(null)).toBeUndefined();
    expect(endedReasonOf('')).toBeUndefined();
  });
  it('names the caller of a delete by strategy and id', () => {
    expect(endedByCaller({ strategy: 'api_key', userId: 'key_1' })).toBe('api_key:key_1');
  });
});
