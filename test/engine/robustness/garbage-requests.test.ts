/**
 * "No 500 for anything a client can send", checked against every route the engine documents:
 * each path and method from its own /openapi.json gets malformed path parameters (bad
 * %-escapes, control and non-ASCII characters, a very long id), a body that is not JSON, JSON of
 * the wrong shape, the route's own fields with out-of-range numbers or huge strings, and query
 * parameters of the wrong type (see queriesFor for routes that take none). Every answer must be a 4xx with the
 * wire Error object (code, message, details) — never a 5xx, never a hang — and the engine must
 * still answer afterwards. A second pass sends the same to every session route with the id of a
 * real running session, so the checks behind the session lookup are reached as well.
 *
 * Against PostgreSQL (the suite's second pass) the bodies that are not JSON of the route's shape
 * are left out: the body parser and the schema refuse them before any query runs. Bad ids,
 * queries and out-of-range field values reach queries, and run there too.
 *
 * @database hostile input reaches queries (PostgreSQL refuses NUL bytes that SQLite takes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

const ON_POSTGRES = !!process.env.BROWSERDECK_TEST_DATABASE_URL;

let t: TestEngine;
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  maxLength?: number;
}
/** `takesQuery`: the route declares query parameters. */
const ops: Array<{ method: string; path: string; body?: Schema; takesQuery: boolean }> = [];

beforeAll(async () => {
  t = await startTestEngine();
  const doc = (await (await t.api('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string }>; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  };
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(methods)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(m))
        ops.push({
          method: m.toUpperCase(),
          path: p,
          body: op.requestBody?.content?.['application/json']?.schema,
          takesQuery: (op.parameters ?? []).some((x) => x.in === 'query'),
        });
    }
  }
});
afterAll(async () => {
  await t?.stop();
});

const BAD_SEGMENTS = ['%E0%A4%A', '%00', 'x'.repeat(600), '%C3%A9%F0%9F%98%80', '..%2F..%2Fetc%2Fpasswd', '%20'];
const BAD_BODIES: Array<{ type: string; body: string }> = [
  { type: 'application/json', body: '{"unterminated": ' },
  { type: 'application/json', body: '[1,2,3]' },
  { type: 'application/json', body: '{"name": {"$gt": ""}, "timeout_seconds": "soon", "viewport": 7, "tags": [null], "size": -1, "limit": "∞"}' },
  { type: 'application/json', body: '"just a string"' },
  { type: 'text/plain', body: 'plain text \u0000 with a NUL' },
];
/**
 * The bad bodies `method` gets. GET and DELETE are sent without one, so their five would be the
 * same request five times: they get one per media type instead. None on PostgreSQL (see above).
 */
const badBodies = (method: string): typeof BAD_BODIES =>
  ON_POSTGRES ? [] : method === 'GET' || method === 'DELETE' ? BAD_BODIES.filter((b, i) => BAD_BODIES.findIndex((x) => x.type === b.type) === i) : BAD_BODIES;

// One bad parameter per request: validation stops at the first, so a combined query would only ever test one.
const BAD_QUERIES = [
  '?limit=abc',
  '?offset=-5',
  '?offset=99999999999999999999',
  '?limit=1e309',
  '?since=yesterday-ish',
  '?status=%E0%A4%A',
  '?category=nope&category=',
  '?order=sideways',
  '?follow=maybe',
  '?path=%00',
  '?query=' + '%27%22'.repeat(50),
];

/**
 * The bad queries a route gets: all of them where it declares query parameters (its schema
 * checks them). A route that declares none never reads its query (handlers are typed by their
 * schema), so there every bad query is the same request to the handler — and often real work:
 * each one launched a browser on POST /browsers, restarted one into a profile on
 * POST /browsers/{id}/profiles, took a screenshot… Such a route gets one, rotating through the
 * list by route, so each still reaches the query parser and the hooks that read every query
 * (the NUL guard, the session-JWT check) on a few dozen routes.
 */
const queriesFor = (op: { takesQuery: boolean }, index: number): string[] => (op.takesQuery ? BAD_QUERIES : [BAD_QUERIES[index % BAD_QUERIES.length]]);

const typesOf = (s: Schema): string[] => [s.type ?? [], ...(s.anyOf ?? []).map((a) => a.type ?? [])].flat();

/**
 * Bodies with the right field names and out-of-range values, from the route's own schema: every
 * number field far beyond any column (1e20), or every string field too long — one character over
 * its declared maxLength, or 2,000 characters where it declares none. A field that takes more
 * than 16 KiB (text to type, code, a tool's source) gets one character: its valid long text is
 * work, not an error (2,000 characters typed one by one took longer than a request may under load).
 */
function oversizedBodies(schema: Schema | undefined): string[] {
  if (!schema?.properties) return [];
  const numbers: Record<string, unknown> = {};
  const strings: Record<string, unknown> = {};
  for (const [k, p] of Object.entries(schema.properties)) {
    const types = typesOf(p);
    if (types.includes('integer') || types.includes('number')) {
      numbers[k] = 1e20;
    } else if (types.includes('string')) {
      const max = Math.max(...[p, ...(p.anyOf ?? [])].map((x) => x.maxLength ?? 0));
      strings[k] = 'x'.repeat(max === 0 ? 2_000 : max > 16_384 ? 1 : max + 1);
      numbers[k] = 'x';
    }
  }
  return [JSON.stringify(numbers), JSON.stringify(strings)];
}

/** Fills every {param} of an OpenAPI path with `segment`. */
const fill = (path: string, segment: string) => path.replace(/\{[^}]+\}/g, segment);

async function expectClientError(method: string, url: string, init: { type?: string; body?: string } = {}): Promise<number> {
  const headers: Record<string, string> = {};
  if (init.type) headers['content-type'] = init.type;
  let res: Response;
  try {
    res = await t.api(url, { method, headers, body: method === 'GET' || method === 'DELETE' ? undefined : init.body, signal: AbortSignal.timeout(20_000) });
  } catch (err) {
    throw new Error(`${method} ${url.slice(0, 160)} (${init.type ?? 'no body'}): ${(err as Error).message}`);
  }
  // A stream that accepted the request (unknown query parameters are ignored) stays open: fine.
  if (res.ok && res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return res.status;
  }
  const text = await res.text();
  const where = `${method} ${url.slice(0, 120)} → ${res.status} ${text.slice(0, 200)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status >= 400) {
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(typeof body.code, where).toBe('string');
    expect(typeof body.message, where).toBe('string');
    expect(Array.isArray(body.details), where).toBe(true);
  }
  return res.status;
}

describe('garbage sent to every documented route', () => {
  // First: the generic pass below changes organization state (its oversized bodies set limits).
  it('reaches the checks behind a real session id too: 4xx for every bad query and body', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 600 });
    const sessionOps = ops.filter((o) => o.path.startsWith('/browsers/{id}') && !(o.method === 'DELETE' && o.path === '/browsers/{id}'));
    expect(sessionOps.length).toBeGreaterThan(30);
    for (const [index, op] of sessionOps.entries()) {
      const url = op.path.replace('{id}', s.session_id);
      for (const seg of url.includes('{') ? BAD_SEGMENTS.slice(0, 2) : ['']) {
        const filled = fill(url, seg);
        for (const q of queriesFor(op, index)) await expectClientError(op.method, filled + q);
        for (const b of badBodies(op.method)) await expectClientError(op.method, filled, b);
        for (const body of oversizedBodies(op.body)) await expectClientError(op.method, filled, { type: 'application/json', body });
      }
    }
    // The session took all of that and still runs.
    expect((await t.client.browsers.retrieve(s.session_id)).deleted_at).toBeUndefined();
    await t.client.browsers.deleteByID(s.session_id);
  }, 600_000);

  it('is answered with a 4xx Error object, never a 5xx', async () => {
    expect(ops.length).toBeGreaterThan(60);
    for (const [index, op] of ops.entries()) {
      const withParams = op.path.includes('{');
      for (const seg of withParams ? BAD_SEGMENTS : ['']) await expectClientError(op.method, fill(op.path, seg));
      // Queries and bodies are validated before the route looks anything up: one id is enough.
      const url = fill(op.path, withParams ? 'no-such-id' : '');
      for (const q of queriesFor(op, index)) await expectClientError(op.method, url + q);
      for (const b of badBodies(op.method)) await expectClientError(op.method, url, b);
      for (const body of oversizedBodies(op.body)) await expectClientError(op.method, url, { type: 'application/json', body });
    }
    expect((await t.api('/browsers')).status).toBe(200);
  }, 600_000);
});
