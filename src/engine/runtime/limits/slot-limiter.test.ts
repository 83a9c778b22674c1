import { describe, expect, it } from 'vitest';
import { SlotLimiter } from './slot-limiter.js';

describe('SlotLimiter', () => {
  it('refuses the key over its own bound while another key still gets a slot', () => {
    const l = new SlotLimiter(2, 10);
    const a1 = l.acquire('a');
    const a2 = l.acquire('a');
    expect(typeof a1).toBe('function');
    expect(typeof a2).toBe('function');
    expect(l.acquire('a')).toEqual({ scope: 'session', max: 2 });
    expect(typeof l.acquire('b')).toBe('function');
    expect(l.inUse('a')).toBe(2);
    expect(l.inUse()).toBe(3);
  });

  it('refuses everyone over the total, and a release frees the slot once', () => {
    const l = new SlotLimiter(5, 2);
    const a = l.acquire('a') as () => void;
    l.acquire('b');
    expect(l.acquire('c')).toEqual({ scope: 'engine', max: 2 });
    expect(l.acquire(undefined)).toEqual({ scope: 'engine', max: 2 });
    a();
    a(); // idempotent: does not free a second slot
    expect(l.inUse()).toBe(1);
    expect(l.inUse('a')).toBe(0);
    expect(typeof l.acquire('c')).toBe('function');
    expect(l.acquire('d')).toEqual({ scope: 'engine', max: 2 });
  });

  it('counts a slot without a key against the total only', () => {
    const l = new SlotLimiter(1, 3);
    const free = l.acquire(undefined) as () => void;
    expect(l.inUse()).toBe(1);
    expect(typeof l.acquire('a')).toBe('function');
    free();
    expect(l.inUse()).toBe(1);
  });
});
