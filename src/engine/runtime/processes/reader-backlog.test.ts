import { describe, expect, it } from 'vitest';
import { ReaderBacklog } from './reader-backlog.js';

describe('ReaderBacklog', () => {
  it('drops and counts output while the reader is behind by more than max, and reports it once', () => {
    let waiting = 0;
    const b = new ReaderBacklog(() => waiting, 100);
    expect(b.admit(50)).toBe(true);
    waiting = 101;
    expect(b.admit(30)).toBe(false);
    expect(b.admit(20)).toBe(false);
    waiting = 100;
    expect(b.admit(10)).toBe(true);
    expect(b.takeDropped()).toBe(50);
    expect(b.takeDropped()).toBe(0);
  });
});
