/**
 * "No 500 for anything a client can send", checked against every route the engine documents:
 * each path and method from its own /openapi.json gets malformed path parameters (bad
 * %-escapes, control and non-ASCII characters, a very long id), a body that is not JSON, JSON of
 * the wrong shape, and query parameters of the wrong type. Every answer must be a 4xx with the
 * wire Error object (code, message, details) — never a 5xx, never a hang — and the engine must
 * still answer afterwards. A second pass sends the same to every session route with the id of a
 * real running session, so the checks behind the session lookup are reached as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
const ops: Array<{ method: string; path: string }> = [];

beforeAll(async () => {
  t = await startTestEngine();
  const doc = (await (await t.api('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  for (const [p, methods] of Object.entries(doc.paths)) for (const m of Object.keys(methods)) if (['get', 'post', 'put', 'patch', 'delete'].includes(m)) ops.push({ method: m.toUpperCase(), path: p });
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
const BAD_QUERY = '?limit=abc&offset=-5&since=yesterday-ish&status=%E0%A4%A&category=nope&order=sideways&follow=maybe';

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
  it('is answered with a 4xx Error object, never a 5xx', async () => {
    expect(ops.length).toBeGreaterThan(60);
    for (const op of ops) {
      const withParams = op.path.includes('{');
      for (const seg of withParams ? BAD_SEGMENTS : ['']) {
        const url = fill(op.path, seg);
        await expectClientError(op.method, url + BAD_QUERY);
        for (const b of BAD_BODIES) await expectClientError(op.method, url, b);
      }
    }
    expect((await t.api('/browsers')).status).toBe(200);
  }, 600_000);

  it('reaches the checks behind a real session id too: 4xx for every bad query and body', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 600 });
    const sessionOps = ops.filter((o) => o.path.startsWith('/browsers/{id}') && !(o.method === 'DELETE' && o.path === '/browsers/{id}'));
    expect(sessionOps.length).toBeGreaterThan(30);
    for (const op of sessionOps) {
      const url = op.path.replace('{id}', s.session_id);
      for (const seg of url.includes('{') ? BAD_SEGMENTS.slice(0, 2) : ['']) {
        const filled = fill(url, seg);
        await expectClientError(op.method, filled + BAD_QUERY);
        for (const b of BAD_BODIES) await expectClientError(op.method, filled, b);
      }
    }
    // The session took all of that and still runs.
    expect((await t.client.browsers.retrieve(s.session_id)).deleted_at).toBeUndefined();
    await t.client.browsers.deleteByID(s.session_id);
  }, 600_000);
});
