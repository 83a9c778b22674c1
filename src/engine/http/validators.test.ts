import { describe, expect, it } from 'vitest';
import { validatorFor } from './validators.js';

const schema = () => ({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false });

describe('compiled once per process', () => {
  it('gives one validator to equal schemas from different objects (a restarted engine)', () => {
    expect(validatorFor(schema(), 'querystring')).toBe(validatorFor(schema(), 'querystring'));
    expect(validatorFor(schema(), 'body')).toBe(validatorFor(schema(), 'body'));
    expect(validatorFor({ ...schema(), required: [] }, 'body')).not.toBe(validatorFor(schema(), 'body'));
  });

  it('keeps coercion to the text parts: a body is not coerced, a query string is', () => {
    const query = { n: '5' };
    expect(validatorFor(schema(), 'querystring')(query)).toBe(true);
    expect(query.n).toBe(5);
    expect(validatorFor(schema(), 'body')({ n: '5' })).toBe(false);
  });

  it('keeps dropping unknown body fields with a cached validator', () => {
    const body: Record<string, unknown> = { n: 1, extra: true };
    expect(validatorFor(schema(), 'body')(body)).toBe(true);
    expect(body).toEqual({ n: 1 });
  });
});
