/**
 * `network.proxy_routes` (spec kernel-api-after-0.84 §2.4) through the API and the real egress:
 * two recording proxies on loopback (test/helpers/test-proxy.ts) prove which destination went
 * where — per-route proxy by id or name, exact before wildcard, unmatched to the top-level proxy
 * (or direct without one), plain and tunnelled; a route never reaches an address the engine's
 * egress policy denies; a route whose proxy is deleted fails closed; bad routes are 4xx Error
 * objects before any browser starts. Raw HTTP: SDK 0.84 does not type `network`.
 */
import type { BrowserCreateResponse } from '@onkernel/sdk/resources/browsers/browsers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { curlVia } from '../../helpers/browser-session.js';
import { startLocalServer } from '../../helpers/local-server.js';
import { startEchoServer, startTestProxy, type TestProxy } from '../../helpers/test-proxy.js';
import { DEFAULT_EGRESS_DENY } from '../../../src/engine/config.js';

type Json = Record<string, unknown>;
/** A session as the SDK types it, plus the fields it does not know yet (`network`); an Error object's fields read as unknown. */
type Session = Json & BrowserCreateResponse;
let t: TestEngine;
let proxyA: TestProxy;
let proxyB: TestProxy;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
let origin2: { url: string; hits: string[]; close(): Promise<void> };
let denied: { url: string; hits: string[]; close(): Promise<void> };
let idA: string;
let idB: string;

/** A page at `address` that records the paths asked for. */
async function startOrigin(address: string) {
  const hits: string[] = [];
  const server = await startLocalServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${address}</title>`);
  }, address);
  return { ...server, hits };
}

beforeAll(async () => {
  [proxyA, proxyB, echo, origin2, denied] = await Promise.all([
    startTestProxy(),
    startTestProxy(),
    startEchoServer(),
    startOrigin('127.0.0.2'),
    startOrigin('127.0.0.3'),
  ]);
  t = await startTestEngine({ identity: { proxyTimeoutMs: 3000 }, egressDeny: [...DEFAULT_EGRESS_DENY, '127.0.0.3/32'] });
  idA = (await t.client.proxies.create({ type: 'custom', name: 'proxy-a', config: { host: '127.0.0.1', port: proxyA.port } })).id!;
  idB = (await t.client.proxies.create({ type: 'custom', name: 'proxy-b', config: { host: '127.0.0.1', port: proxyB.port } })).id!;
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([proxyA?.close(), proxyB?.close(), echo?.close(), origin2?.close(), denied?.close()]);
});

async function create(body: Json): Promise<{ status: number; body: Session }> {
  const res = await t.api('/browsers', { method: 'POST', json: { headless: true, timeout_seconds: 120, ...body } });
  return { status: res.status, body: (await res.json()) as Session };
}

const saw = (p: TestProxy, needle: string) => p.targets().some((x) => x.includes(needle));

describe('network.proxy_routes', () => {
  it('sends each destination through its route (by id or name), exact before wildcard, the rest direct', async () => {
    const s = await create({
      network: {
        proxy_routes: [
          { hosts: ['*.routed.test', '127.0.0.2'], proxy: { id: idA } },
          { hosts: ['b.routed.test', 'localhost'], proxy: { name: 'proxy-b' } },
        ],
      },
    });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const id = s.body.session_id;
    // Reported by id whichever way the create named the proxy; fixed after create.
    const expected = {
      proxy_routes: [
        { hosts: ['*.routed.test', '127.0.0.2'], proxy: { id: idA } },
        { hosts: ['b.routed.test', 'localhost'], proxy: { id: idB } },
      ],
    };
    expect(s.body.network).toEqual(expected);
    expect(((await (await t.api(`/browsers/${id}`)).json()) as Json).network).toEqual(expected);

    expect(await curlVia(t, id, `${origin2.url}/to-a`)).toEqual({ status: 200 });
    expect(saw(proxyA, '/to-a')).toBe(true);
    expect(saw(proxyB, '/to-a')).toBe(false);
    expect(await curlVia(t, id, `http://localhost:${echo.port}/to-b`)).toEqual({ status: 200 });
    expect(saw(proxyB, '/to-b')).toBe(true);
    expect(saw(proxyA, '/to-b')).toBe(false);
    // Names the proxies cannot resolve: only who was asked matters.
    await curlVia(t, id, 'http://x.deep.routed.test/wild');
    expect(proxyA.targets()).toContain('http://x.deep.routed.test/wild');
    await curlVia(t, id, 'http://b.routed.test/exact');
    expect(proxyB.targets()).toContain('http://b.routed.test/exact');
    expect(saw(proxyA, 'b.routed.test')).toBe(false);
    // Tunnelled: the CONNECT goes to the route's proxy too.
    await curlVia(t, id, 'https://y.routed.test/tls');
    expect(proxyA.targets()).toContain('y.routed.test:443');
    // Unmatched, no top-level proxy: direct.
    expect(await curlVia(t, id, `${echo.url}/unmatched`)).toEqual({ status: 200 });
    expect(echo.hits).toContain('/unmatched');
    expect(saw(proxyA, '/unmatched') || saw(proxyB, '/unmatched')).toBe(false);
    await t.client.browsers.deleteByID(id);
  });

  it('unmatched destinations use the top-level proxy; a route never reaches a denied address', async () => {
    const s = await create({ proxy: { id: idB }, network: { proxy_routes: [{ hosts: ['127.0.0.2', '127.0.0.3'], proxy: { id: idA } }] } });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const id = s.body.session_id;
    expect(await curlVia(t, id, `${echo.url}/top-level`)).toEqual({ status: 200 });
    expect(saw(proxyB, '/top-level')).toBe(true);
    expect(saw(proxyA, '/top-level')).toBe(false);
    expect(await curlVia(t, id, `${origin2.url}/routed`)).toEqual({ status: 200 });
    expect(saw(proxyA, '/routed')).toBe(true);
    // 127.0.0.3 is in --egress-deny: refused before any proxy is asked.
    expect(await curlVia(t, id, `${denied.url}/denied`)).toEqual({ netError: 'net::ERR_NETWORK_ACCESS_DENIED' });
    expect(saw(proxyA, '127.0.0.3') || saw(proxyB, '127.0.0.3')).toBe(false);
    expect(denied.hits).toEqual([]);
    // A live switch of the top-level proxy keeps the routes.
    expect((await t.api(`/browsers/${id}`, { method: 'PATCH', json: { proxy: { mode: 'direct' } } })).status).toBe(200);
    expect(await curlVia(t, id, `${origin2.url}/still-routed`)).toEqual({ status: 200 });
    expect(saw(proxyA, '/still-routed')).toBe(true);
    expect(await curlVia(t, id, `${echo.url}/now-direct`)).toEqual({ status: 200 });
    expect(saw(proxyB, '/now-direct')).toBe(false);
    await t.client.browsers.deleteByID(id);
  });

  it("fails closed when a route's proxy is deleted", async () => {
    const gone = (await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: proxyA.port } })).id!;
    const s = await create({ network: { proxy_routes: [{ hosts: ['127.0.0.2'], proxy: { id: gone } }] } });
    const id = s.body.session_id;
    expect(await curlVia(t, id, `${origin2.url}/before-delete`)).toEqual({ status: 200 });
    expect(saw(proxyA, '/before-delete')).toBe(true);
    await t.client.proxies.delete(gone);
    expect(await curlVia(t, id, `${origin2.url}/after-delete`)).toEqual({ netError: 'net::ERR_PROXY_CONNECTION_FAILED' });
    expect(origin2.hits).not.toContain('/after-delete');
    expect(saw(proxyA, '/after-delete')).toBe(false);
    await t.client.browsers.deleteByID(id);
  });

  it('refuses bad routes with 4xx Error objects before any browser starts', async () => {
    const before = (await t.client.browsers.list()).getPaginatedItems().length;
    const unknown = await create({ network: { proxy_routes: [{ hosts: ['a.example'], proxy: { id: 'nope' } }] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details).toEqual([{ code: 'invalid_field', message: 'network.proxy_routes[0].proxy: no such proxy in this project' }]);
    const port = await create({ network: { proxy_routes: [{ hosts: ['a.example:443'], proxy: { id: idA } }] } });
    expect(port.status).toBe(400);
    expect(port.body.message).toMatch(/^network\.proxy_routes\[0\]\.hosts\[0\]: 'a\.example:443' carries a port/);
    const twice = await create({
      network: {
        proxy_routes: [
          { hosts: ['a.example'], proxy: { id: idA } },
          { hosts: ['a.example'], proxy: { id: idB } },
        ],
      },
    });
    expect(twice.status).toBe(400);
    const direct = await create({ network: { proxy_routes: [{ hosts: ['a.example'], proxy: { mode: 'direct' } }] } });
    expect(direct.status).toBe(400);
    const notList = await create({ network: { proxy_routes: { hosts: ['a.example'] } } });
    expect(notList.status).toBe(400);
    expect(notList.body.code).toBe('invalid_request');
    const pool = await t.api('/browser_pools', {
      method: 'POST',
      json: { size: 1, network: { proxy_routes: [{ hosts: ['a.example'], proxy: { id: idA } }] } },
    });
    expect(pool.status).toBe(400);
    expect((await t.client.browsers.list()).getPaginatedItems().length).toBe(before);
  });
});
