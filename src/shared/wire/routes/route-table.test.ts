/**
 * What /openapi.json owes a reader, checked on the table it is generated from: every entry says
 * in one line what it does, and every number a client writes (POST/PATCH/PUT bodies) documents
 * its range — a bound the engine enforces but the schema hides is a refusal nobody can foresee.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES, methodsAndUrl, type RouteKey, type RouteSpec } from './route-table.js';

const WRITES = new Set(['POST', 'PATCH', 'PUT']);

/**
 * Body numbers with no `minimum`/`maximum` on purpose, `METHOD /path body.field` → why. Each bound
 * the domain answers with its own code (not 400 `invalid_request`) stays out of the schema, so the
 * client keeps that code; its range is in the field's `description` instead.
 */
const REFRESH_RATE = 'out of range answers 422 unsupported_refresh_rate (domain/sessions/session-options.ts), not 400; the range is in its description';
const UNBOUNDED: Record<string, string> = {
  'POST /browsers body.viewport.refresh_rate': REFRESH_RATE,
  'PATCH /browsers/:id body.viewport.refresh_rate': REFRESH_RATE,
  'POST /browser_pools body.viewport.refresh_rate': REFRESH_RATE,
  'PATCH /browser_pools/:id_or_name body.viewport.refresh_rate': REFRESH_RATE,
};

/** The dotted paths of number/integer fields under a JSON schema, with the schema of each. */
function numberFields(schema: unknown, path: string, out: Array<{ path: string; schema: Record<string, unknown> }>): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  const type = s.type;
  if (type === 'number' || type === 'integer' || (Array.isArray(type) && (type.includes('number') || type.includes('integer')))) {
    out.push({ path, schema: s });
  }
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, sub] of Object.entries(s.properties as Record<string, unknown>)) numberFields(sub, `${path}.${name}`, out);
  }
  if (s.items) numberFields(s.items, `${path}[]`, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') numberFields(s.additionalProperties, `${path}.*`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) for (const sub of s[key] as unknown[]) numberFields(sub, path, out);
  }
}

const entries = Object.entries(ROUTES) as Array<[RouteKey, RouteSpec]>;

describe('route table', () => {
  it('gives every entry a one-line summary', () => {
    const missing = entries.filter(([, spec]) => !spec.schema.summary?.trim()).map(([key]) => key);
    expect(missing).toEqual([]);
    const multiline = entries.filter(([, spec]) => spec.schema.summary?.includes('\n')).map(([key]) => key);
    expect(multiline).toEqual([]);
  });

  it('bounds every number of a POST/PATCH/PUT body, or says why not', () => {
    const unbounded: string[] = [];
    for (const [key, spec] of entries) {
      const { methods, url } = methodsAndUrl(key);
      if (!spec.schema.body || !methods.some((m) => WRITES.has(m))) continue;
      const fields: Array<{ path: string; schema: Record<string, unknown> }> = [];
      numberFields(spec.schema.body, 'body', fields);
      for (const field of fields) {
        const name = `${methods.join('|')} ${url} ${field.path}`;
        if (
          field.schema.minimum === undefined &&
          field.schema.maximum === undefined &&
          field.schema.exclusiveMinimum === undefined &&
          field.schema.exclusiveMaximum === undefined &&
          !UNBOUNDED[name]
        ) {
          unbounded.push(name);
        }
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('keeps no stale exemption', () => {
    const keys = new Set(
      entries.map(([key]) => {
        const { methods, url } = methodsAndUrl(key);
        return `${methods.join('|')} ${url}`;
      }),
    );
    const stale = Object.keys(UNBOUNDED).filter((name) => !keys.has(name.slice(0, name.lastIndexOf(' '))));
    expect(stale).toEqual([]);
  });
});
