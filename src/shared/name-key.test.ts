import { describe, expect, it } from 'vitest';
import { nameKey } from './name-key.js';

describe('nameKey', () => {
  it('folds case and accents, so look-alike names collide', () => {
    expect(nameKey('Café')).toBe('cafe');
    expect(nameKey('CAFE\u0301')).toBe('cafe');
    expect(nameKey('Ångström')).toBe('angstrom');
  });

  it('keeps what is not a mark: spaces, digits, other scripts, emoji', () => {
    expect(nameKey('Team 2 😀')).toBe('team 2 😀');
    expect(nameKey('Σοφία')).toBe('σοφια');
    expect(nameKey('a b')).not.toBe(nameKey('ab'));
  });
});
