import { describe, expect, it } from 'vitest';
import { queryList } from './query-list.js';

describe('queryList', () => {
  it('splits repeated and comma-joined values, trimmed, without empty ones', () => {
    expect(queryList(undefined)).toEqual([]);
    expect(queryList([])).toEqual([]);
    expect(queryList(['a', ' b , c ', ',,', ''])).toEqual(['a', 'b', 'c']);
  });
});
