import Ajv from 'ajv';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ignoredFieldsOf, ignoringUnknownFields } from './unknown-fields.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const schema = Type.Object(
  {
    name: Type.Optional(Type.String()),
    telemetry: Type.Optional(Type.Object({ enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    pick: Type.Optional(Type.Union([Type.Object({ a: Type.String() }, { additionalProperties: false }), Type.Null()])),
    either: Type.Optional(
      Type.Union([Type.Object({ a: Type.String() }, { additionalProperties: false }), Type.Object({ b: Type.String() }, { additionalProperties: false })]),
    ),
  },
  { additionalProperties: false },
);
const validate = ignoringUnknownFields(ajv.compile(schema));

describe('unknown body fields', () => {
  it('are dropped at any depth and named', () => {
    const body = { name: 'x', region: 'eu-west', telemetry: { enabled: true, export: { otlp: {} } } };
    expect(validate(body)).toBe(true);
    expect(body).toEqual({ name: 'x', telemetry: { enabled: true } });
    expect(ignoredFieldsOf(body)).toEqual(['region', 'telemetry.export']);
  });

  it('leave other errors a 400 (the unknown field is dropped, the wrong type reported)', () => {
    const body = { name: 5, memory: '8GiB' };
    expect(validate(body)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toEqual(['/name']);
  });

  it('are dropped inside a nullable object (the other branch fails on type alone)', () => {
    const body = { pick: { a: 'x', b: 1 } };
    expect(validate(body)).toBe(true);
    expect(body).toEqual({ pick: { a: 'x' } });
    expect(ignoredFieldsOf(body)).toEqual(['pick.b']);
  });

  it('are all dropped when thousands come in a nullable object (one pass over the errors, not one per extra)', () => {
    const pick: Record<string, unknown> = { a: 'x' };
    for (let i = 0; i < 5000; i++) pick[`x${i}`] = i;
    const body = { pick };
    expect(validate(body)).toBe(true);
    expect(body).toEqual({ pick: { a: 'x' } });
    expect(ignoredFieldsOf(body)).toHaveLength(5000);
  });

  it('are refused inside a union of objects, where the branch they were extra to is unknown', () => {
    expect(validate({ either: { a: 'x', c: 1 } })).toBe(false);
    expect(validate({ either: { a: 'x' } })).toBe(true);
  });

  it('are never stripped from what JSON.parse does not make (a request stream, a Buffer)', () => {
    class Stream {
      _readableState = { flowing: null };
    }
    const body = new Stream();
    expect(validate(body)).toBe(false);
    expect(body._readableState).toEqual({ flowing: null });
  });

  it('leave a valid body untouched and unmarked', () => {
    const body = { name: 'y' };
    expect(validate(body)).toBe(true);
    expect(ignoredFieldsOf(body)).toBeUndefined();
  });
});
