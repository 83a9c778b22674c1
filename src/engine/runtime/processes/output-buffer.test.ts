import { describe, expect, it } from 'vitest';
import { OutputBuffer } from './output-buffer.js';

const chunk = (text: string) => ({ stream: 'stdout' as const, data: Buffer.from(text) });
const text = (b: OutputBuffer) => Buffer.concat(b.snapshot().map((c) => c.data)).toString();

describe('OutputBuffer', () => {
  it('keeps the newest chunks within its size and counts what it dropped', () => {
    const b = new OutputBuffer(6);
    for (const t of ['abc', 'def', 'ghi']) b.push(chunk(t));
    expect(text(b)).toBe('defghi');
    expect(b.dropped).toBe(3);
  });

  it('keeps nothing at size 0', () => {
    const b = new OutputBuffer(0);
    b.push(chunk('abc'));
    expect(b.snapshot()).toEqual([]);
    expect(b.dropped).toBe(3);
  });

  it('shrinks to the tail of its output, within a chunk too, and stays that small', () => {
    const b = new OutputBuffer(100);
    for (const t of ['abcdef', 'ghijkl']) b.push(chunk(t));
    b.shrink(4);
    expect(text(b)).toBe('ijkl');
    expect(b.dropped).toBe(8);
    b.push(chunk('mn'));
    expect(text(b)).toBe('mn');
  });
});
