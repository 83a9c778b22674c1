import { describe, expect, it } from 'vitest';
import { resolveRange } from './byte-range.js';

describe('resolveRange', () => {
  it('answers the whole file without a Range header', () => {
    expect(resolveRange(undefined, 100)).toEqual({ kind: 'full' });
  });

  it('resolves closed, open-ended and suffix ranges', () => {
    expect(resolveRange('bytes=0-9', 100)).toEqual({ kind: 'partial', start: 0, end: 9 });
    expect(resolveRange('bytes=90-', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(resolveRange('bytes=-10', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(resolveRange('BYTES= 5-5 ', 100)).toEqual({ kind: 'partial', start: 5, end: 5 });
  });

  it('clamps an end past the file and a suffix longer than the file', () => {
    expect(resolveRange('bytes=50-1000', 100)).toEqual({ kind: 'partial', start: 50, end: 99 });
    expect(resolveRange('bytes=-1000', 100)).toEqual({ kind: 'partial', start: 0, end: 99 });
  });

  it('ignores several ranges (RFC 9110 lets a server answer the whole file)', () => {
    expect(resolveRange('bytes=0-1,5-6', 100)).toEqual({ kind: 'full' });
  });

  it('refuses bad syntax and unsatisfiable ranges', () => {
    for (const h of ['items=0-1', 'bytes=', 'bytes=-', 'bytes=a-b', 'bytes=5-4', 'bytes=100-', 'bytes=-0', 'bytes=1-2-3']) {
      expect(resolveRange(h, 100), h).toEqual({ kind: 'unsatisfiable' });
    }
    // An empty file has no byte to serve.
    expect(resolveRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(resolveRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
    // A start beyond 2^53 is not a position we can seek to.
    expect(resolveRange('bytes=99999999999999999999-', 100)).toEqual({ kind: 'unsatisfiable' });
  });
});
