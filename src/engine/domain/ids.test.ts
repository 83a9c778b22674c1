import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('is 24 lowercase base-36 characters by default', () => {
    expect(newId()).toMatch(/^[0-9a-z]{24}$/);
  });

  it('honours the requested length', () => {
    expect(newId(8)).toMatch(/^[0-9a-z]{8}$/);
    expect(newId(64)).toHaveLength(64);
  });

  it('does not repeat, and uses the whole alphabet', () => {
    const ids = Array.from({ length: 2000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.join('')).size).toBe(36);
  });
});
