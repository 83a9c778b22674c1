import { describe, expect, it } from 'vitest';
import { exitSignal } from './exit-signal.js';

describe('exitSignal', () => {
  it('names codes above 128 by their signal', () => {
    expect(exitSignal(137)).toBe('SIGKILL');
    expect(exitSignal(143)).toBe('SIGTERM');
    expect(exitSignal(130)).toBe('SIGINT');
    expect(exitSignal(129)).toBe('SIGHUP');
  });
  it('leaves ordinary exits and unknown signals unnamed', () => {
    expect(exitSignal(0)).toBeUndefined();
    expect(exitSignal(1)).toBeUndefined();
    expect(exitSignal(128)).toBeUndefined();
    expect(exitSignal(null)).toBeUndefined();
    expect(exitSignal(255)).toBeUndefined();
  });
});
