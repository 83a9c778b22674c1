import { describe, expect, it } from 'vitest';
import { checkDisplayName } from './display-name.js';

describe('checkDisplayName', () => {
  it('returns the trimmed name', () => {
    expect(checkDisplayName('  Team A  ')).toBe('Team A');
  });

  it('counts code points, so 255 emoji are allowed and 256 are not', () => {
    expect(checkDisplayName('😀'.repeat(255))).toBe('😀'.repeat(255));
    expect(() => checkDisplayName('😀'.repeat(256))).toThrow('name: must be 1 to 255 characters');
  });

  it('refuses an empty or blank name, naming the field', () => {
    expect(() => checkDisplayName('')).toThrow('name: must be 1 to 255 characters');
    expect(() => checkDisplayName(' \t\n', 'display_name')).toThrow('display_name: must be 1 to 255 characters');
  });

  it('measures after trimming', () => {
    expect(checkDisplayName(` ${'x'.repeat(255)} `)).toHaveLength(255);
  });
});
