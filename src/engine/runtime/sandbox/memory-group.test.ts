import { describe, expect, it } from 'vitest';
import { memoryBytes } from './memory-group.js';

describe('memoryBytes', () => {
  it('reads the session memory sizes', () => {
    expect(memoryBytes('1GiB')).toBe(1024 ** 3);
    expect(memoryBytes('16GiB')).toBe(16 * 1024 ** 3);
    expect(memoryBytes('512MiB')).toBe(512 * 1024 ** 2);
    expect(() => memoryBytes('8GB')).toThrow();
  });
});
