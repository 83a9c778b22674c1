import { describe, expect, it } from 'vitest';
import { serializerFor } from './serializers.js';

const schema = () => ({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false });

describe('serializerFor', () => {
  it('gives one serializer to equal response schemas, and it serializes by its own schema', () => {
    const s = serializerFor(schema());
    expect(serializerFor(schema())).toBe(s);
    expect(serializerFor({ type: 'object', properties: { m: { type: 'string' } } })).not.toBe(s);
    expect(JSON.parse(s({ n: 2, secret: 'x' }))).toEqual({ n: 2 });
  });
});
