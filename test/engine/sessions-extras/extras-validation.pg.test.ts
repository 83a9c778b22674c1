import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

/** Raw requests a client could send; none may produce a 500, each answers the Error object. */
const CASES: Array<[string, string, unknown, number]> = [
  ['POST', '/browser_pools', [], 400],
  ['POST', '/browser_pools', { size: '2' }, 400],
  ['POST', '/browser_pools', { size: 2.5 }, 400],
  ['POST', '/browser_pools', { size: 1, viewport: { width: 1, height: 1 } }, 400],
  ['POST', '/browser_pools', { size: 1, telemetry: { enabled: false, browser: { console: { enabled: true } } } }, 400],
  ['POST', '/browser_pools', { size: 1, name: 'bad name!' }, 400],
  ['POST', '/browser_pools', { size: 1, start_url: 'javascript:alert(1)' }, 400],
  ['POST', '/browser_pools', { size: 1, timeout_seconds: 5 }, 400],
  ['POST', '/browser_pools', { size: 1, profile: { id: 'a', name: 'b' } }, 400],
  ['POST', '/browser_pools', { size: 1, chrome_policy: { 'not a policy!': 'x' } }, 400],
  // An unknown field is ignored (forward compatibility), a wrong known one still refused.
  ['POST', '/browser_pools', { size: 1, unknown_field: true, headless: 'no' }, 400],
  ['PATCH', '/browser_pools/nope', { size: 2 }, 404],
  ['GET', '/browser_pools/nope', undefined, 404],
  ['DELETE', '/browser_pools/nope', {}, 404],
  ['POST', '/browser_pools/nope/acquire', {}, 404],
  // An unknown pool or profile is a 404 before its body is validated (http/resource-lookup-first.ts).
  ['POST', '/browser_pools/nope/acquire', { tags: { a: 1 } }, 404],
  ['POST', '/browser_pools/nope/acquire', { acquire_timeout_seconds: 601 }, 404],
  ['POST', '/browser_pools/nope/release', { session_id: 'x', reuse: 'yes' }, 404],
  ['POST', '/browser_pools/nope/release', {}, 404],
  ['POST', '/browser_pools/nope/flush', undefined, 404],
  ['GET', '/browser_pools?limit=1000', undefined, 400],
  ['GET', '/profiles?offset=-1', undefined, 400],
  ['GET', '/profiles/%00', undefined, 400],
  ['GET', '/browser_pools?name=a%00b', undefined, 400],
  ['POST', '/profiles', { name: 'a\u0000' }, 400],
  ['POST', '/browser_pools/nope/acquire', { tags: { a: 'x\u0000' } }, 404],
  ['PATCH', '/profiles/nope', {}, 404],
  ['PATCH', '/profiles/nope', { name: 'ok' }, 404],
  ['GET', '/profiles/nope/download', undefined, 404],
  ['GET', '/browsers/nope/live', undefined, 404],
];

describe('extras endpoints validate input', () => {
  it.each(CASES)('%s %s %j → %i', async (method, path, body, status) => {
    const res = await t.api(path, { method, ...(body !== undefined ? { json: body } : {}) });
    expect(res.status).toBe(status);
    const err = await res.json();
    expect(err).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it('refuses WebSocket upgrades for unknown sessions and without credentials', async () => {
    const { WebSocket } = await import('ws');
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.once('unexpected-response', (_q, r) => resolve(r.statusCode ?? 0));
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('error', () => resolve(-1));
      });
    const base = t.url.replace(/^http/, 'ws');
    expect(await status(`${base}/browsers/nope/webdriver`)).toBe(401);
    expect(await status(`${base}/browsers/nope/live/ws`)).toBe(401);
    expect(await status(`${base}/browsers/nope/webdriver`, { authorization: `Bearer ${t.adminKey}` })).toBe(404);
    expect(await status(`${base}/browsers/nope/live/ws`, { authorization: `Bearer ${t.adminKey}` })).toBe(404);
  });
});
