import { describe, expect, it } from 'vitest';
import { matchesAny, patternProblem } from './url-patterns.js';

describe('custom tool URL patterns', () => {
  it('matches whole URLs with * as any run of characters', () => {
    expect(matchesAny(['https://shop.example/*'], 'https://shop.example/cart?x=1')).toBe(true);
    expect(matchesAny(['https://shop.example/*'], 'https://shop.example.evil/cart')).toBe(false);
    expect(matchesAny(['https://shop.example/cart'], 'https://shop.example/cart/more')).toBe(false);
    expect(matchesAny(['*://*.example.com/a*'], 'http://www.example.com/abc')).toBe(true);
    expect(matchesAny(['http://127.0.0.1:*/tools'], 'http://127.0.0.1:8080/tools#frag')).toBe(true);
  });

  it('treats regular-expression characters literally', () => {
    expect(matchesAny(['https://a.example/x?y=(1)'], 'https://a.example/x?y=(1)')).toBe(true);
    expect(matchesAny(['https://a.example/x?y=(1)'], 'https://aXexample/x?y=(1)')).toBe(false);
    expect(matchesAny(['https://a.example/.*'], 'https://a.example/anything')).toBe(false);
  });

  it('matches pieces in order, overlapping ends included', () => {
    expect(matchesAny(['*ab*ab*'], 'xabyab')).toBe(true);
    expect(matchesAny(['*ab*ab*'], 'xaby')).toBe(false);
    expect(matchesAny(['a*a'], 'a')).toBe(false);
    expect(matchesAny(['a*a'], 'aa')).toBe(true);
    expect(matchesAny(['*'], '')).toBe(true);
  });

  it('answers a crafted pattern against a long URL at once (a regex of it backtracks for hours on the engine loop)', () => {
    const pattern = `https://a.example/${'*a'.repeat(40)}*b`;
    const url = `https://a.example/${'a'.repeat(100_000)}`;
    expect(matchesAny([pattern], url)).toBe(false);
    expect(matchesAny([pattern], `${url}b`)).toBe(true);
  });

  it('refuses empty, whitespace, fragment and overlong patterns', () => {
    expect(patternProblem('')).toBeDefined();
    expect(patternProblem(3)).toBeDefined();
    expect(patternProblem('https://a b')).toBeDefined();
    expect(patternProblem('https://a/#x')).toBeDefined();
    expect(patternProblem('x'.repeat(2049))).toBeDefined();
    expect(patternProblem('https://a.example/*')).toBeUndefined();
  });
});
