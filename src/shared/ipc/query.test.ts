import { describe, expect, it } from 'vitest';
import { encodeQuery, flattenObjectParam } from './query.js';

describe('encodeQuery', () => {
  it('is empty for no query or nothing to send', () => {
    expect(encodeQuery(undefined)).toBe('');
    expect(encodeQuery({})).toBe('');
    expect(encodeQuery({ b: [] })).toBe('');
    expect(encodeQuery({ a: undefined } as never)).toBe('');
  });

  it('joins arrays with commas, writes booleans and numbers as text, spaces as %20', () => {
    expect(encodeQuery({ status: ['active', 'ended'], headless: false, limit: 20, q: 'a b+c' })).toBe(
      '?status=active%2Cended&headless=false&limit=20&q=a%20b%2Bc',
    );
  });

  it('encodes flattened deep-object tags as the official client does', () => {
    expect(encodeQuery(flattenObjectParam('tags', { team: 'a b', env: 'prod' }))).toBe('?tags%5Bteam%5D=a%20b&tags%5Benv%5D=prod');
  });
});
