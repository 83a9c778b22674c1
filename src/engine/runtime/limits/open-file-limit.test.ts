import { describe, expect, it } from 'vitest';
import { connectionCapFor, softNofileOf } from './open-file-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('open-file limit', () => {
  it('reads the soft NOFILE of /proc/self/limits', () => {
    expect(softNofileOf(LIMITS)).toBe(1024);
    expect(softNofileOf(LIMITS.replace('1024                 524288', 'unlimited            unlimited'))).toBe(1024 * 1024);
    expect(softNofileOf('Max cpu time unlimited unlimited seconds\n')).toBeUndefined();
  });

  it('gives connections half the descriptors at two each', () => {
    expect(connectionCapFor(1024)).toBe(256);
    expect(connectionCapFor(65536)).toBe(16384);
    expect(connectionCapFor(3)).toBe(1);
  });
});
