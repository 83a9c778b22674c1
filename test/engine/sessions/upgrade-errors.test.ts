/**
 * WebSocket upgrades that cannot be served answer with the wire Error object and the error's own
 * status and code (not a generic one), then close: unknown WebSocket path, a malformed %-escape in
 * the session id (which must not take the engine down), an unknown session, a missing token, and
 * a session that has ended. The engine keeps answering afterwards.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
});

/** Sends a WebSocket handshake for `path` and returns the HTTP answer that refused it. */
function refusedUpgrade(path: string): Promise<{ status: number; statusText: string; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, t.url), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
      },
    });
    req.on('upgrade', () => reject(new Error(`${path} was upgraded`)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('refused WebSocket upgrades', () => {
  it('answer the Error object with the status, reason phrase and code of what went wrong', async () => {
    expect(await refusedUpgrade('/nowhere/ws')).toMatchObject({
      status: 404,
      statusText: 'Not Found',
      body: { code: 'not_found', message: expect.stringContaining('/nowhere/ws'), details: [] },
    });

    const bad = await refusedUpgrade('/browsers/%E0%A4%A/cdp');
    expect(bad).toMatchObject({ status: 400, statusText: 'Bad Request', body: { code: 'invalid_request', message: expect.stringContaining('%-escape') } });

    // No token: who asks is checked before what is asked for.
    expect(await refusedUpgrade('/browsers/nosuchsession/cdp')).toMatchObject({
      status: 401,
      statusText: 'Unauthorized',
      body: { code: 'unauthorized', message: expect.stringContaining('jwt') },
    });

    const s = await t.client.browsers.create({ headless: true });
    const jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
    await t.client.browsers.deleteByID(s.session_id);
    for (const kind of ['cdp', 'webdriver', 'live/ws']) {
      const ended = await refusedUpgrade(`/browsers/${s.session_id}/${kind}?jwt=${jwt}`);
      expect(ended, kind).toMatchObject({
        status: 404,
        statusText: 'Not Found',
        body: { code: 'not_found', message: expect.stringContaining(s.session_id), details: [] },
      });
    }

    // Still serving.
    expect((await t.client.browsers.list()).getPaginatedItems()).toEqual([]);
  });
});
