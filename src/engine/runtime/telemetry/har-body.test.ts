import { describe, expect, it } from 'vitest';
import { cutText } from './har-body.js';

describe('cutText', () => {
  it('keeps text that fits and cuts the rest on a character boundary', () => {
    expect(cutText('héllo', 6)).toBe('héllo');
    expect(cutText('héllo', 2)).toBe('h');
    expect(cutText('héllo', 3)).toBe('hé');
    expect(cutText('a😀b', 4)).toBe('a');
    expect(cutText('a😀b', 5)).toBe('a😀');
    expect(cutText('x'.repeat(10), 0)).toBe('');
    const long = 'é'.repeat(100_000);
    const cut = cutText(long, 8191);
    expect(Buffer.byteLength(cut)).toBe(8190);
    expect(long.startsWith(cut)).toBe(true);
  });
});
