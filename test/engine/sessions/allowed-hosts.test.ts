/**
 * `network.allowed_hosts` (spec kernel-api-after-0.84 §2.2/§2.4), the egress allowlist, through
 * the API and the real egress of a jailed Chromium: listed hosts load (plain, and WebSocket
 * tunnels); anything else is refused with Chromium's ERR_BLOCKED_BY_ADMINISTRATOR and Kernel's
 * `destination_blocked` — another host, the allowed server by its IP literal, an unlisted name
 * of an allowed address, another port — and never reaches its server; a listed host in
 * --egress-deny stays denied; PATCH replaces the list on the running browser (no restart; an
 * open tunnel the new list refuses is closed), `null` removes it for good; pools, pooled
 * browsers and an engine without the jail refuse it. Raw HTTP: SDK 0.84 does not type `network`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WebSocketServer } from 'ws';
import type { BrowserCreateResponse } from '@onkernel/sdk/resources/browsers/browsers';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { curlVia } from '../../helpers/browser-session.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { DEFAULT_EGRESS_DENY } from '../../../src/engine/config.js';

type Json = Record<string, unknown>;
/** A session as the SDK types it, plus the fields it does not know yet (`network`); an Error object's fields read as unknown. */
type Session = Json & BrowserCreateResponse;
type Origin = LocalServer & { hits: string[]; port: number };
let t: TestEngine;
/** Allowed by name (`localhost:<port>`), also serving WebSockets. */
let allowed: Origin;
/** Same address as `allowed`, another port. */
let otherPort: Origin;
/** Another host, also serving WebSockets. */
let other: Origin;
/** Listed, but inside --egress-deny. */
let denied: Origin;

async function startOrigin(address: string): Promise<Origin> {
  const hits: string[] = [];
  const server = await startLocalServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${address}</title>`);
  }, address);
  // Echo WebSockets on the same port: a tunnel through the forwarder (Chromium sends ws:// as CONNECT).
  const wss = new WebSocketServer({ server: server.server }).on('connection', (ws, req) => {
    hits.push(`ws:${req.url}`);
    ws.on('message', (m) => ws.send(String(m)));
  });
  const close = async () => {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    await server.close();
  };
  return { ...server, close, hits, port: Number(new URL(server.url).port) };
}

beforeAll(async () => {
  [allowed, otherPort, other, denied] = await Promise.all([
    startOrigin('127.0.0.1'),
    startOrigin('127.0.0.1'),
    startOrigin('127.0.0.2'),
    startOrigin('127.0.0.3'),
  ]);
  t = await startTestEngine({ egressDeny: [...DEFAULT_EGRESS_DENY, '127.0.0.3/32'] });
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([allowed, otherPort, other, denied].map((o) => o?.close()));
});

async function call(p: string, method: string, json?: unknown): Promise<{ status: number; body: Session }> {
  const res = await t.api(p, { method, ...(json === undefined ? {} : { json }) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Session };
}
const create = (body: Json) => call('/browsers', 'POST', { headless: true, timeout_seconds: 300, ...body });
const patch = (id: string, body: Json) => call(`/browsers/${id}`, 'PATCH', body);
const BLOCKED = { netError: 'net::ERR_BLOCKED_BY_ADMINISTRATOR' };

async function connect(cdpUrl: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  const context = browser.contexts()[0];
  return { browser, page: context.pages()[0] ?? (await context.newPage()) };
}

/**
 * Opens a WebSocket from the page: 'open' after an echo came back, or 'error'. An open one's
 * close code lands in `socketClosed` (watched from the start, so no close is missed).
 */
function webSocket(page: Page, url: string): Promise<string> {
  return page.evaluate(
    (u) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(u);
        (globalThis as { socketClosed?: Promise<number> }).socketClosed = new Promise((r) => ws.addEventListener('close', (e) => r(e.code)));
        ws.onopen = () => ws.send('ping');
        ws.onmessage = () => resolve('open');
        ws.onerror = () => resolve('error');
      }),
    url,
  );
}

describe('network.allowed_hosts', () => {
  it('lets the listed hosts through and refuses every other destination before it is reached', async () => {
    const list = [`localhost:${allowed.port}`, '127.0.0.3'];
    const s = await create({ network: { allowed_hosts: list } });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const id = s.body.session_id;
    expect(s.body.network).toEqual({ allowed_hosts: list });
    expect((await call(`/browsers/${id}`, 'GET')).body.network).toEqual({ allowed_hosts: list });

    expect(await curlVia(t, id, `http://localhost:${allowed.port}/listed`)).toEqual({ status: 200 });
    expect(allowed.hits).toContain('/listed');
    // The same server by its address, the same name on another port, another host: refused.
    expect(await curlVia(t, id, `http://127.0.0.1:${allowed.port}/by-ip`)).toEqual(BLOCKED);
    expect(await curlVia(t, id, `http://localhost:${otherPort.port}/other-port`)).toEqual(BLOCKED);
    expect(await curlVia(t, id, `${other.url}/other-host`)).toEqual(BLOCKED);
    expect(allowed.hits).not.toContain('/by-ip');
    expect(otherPort.hits).toEqual([]);
    expect(other.hits).toEqual([]);
    // Listed, but the engine's egress policy still applies.
    expect(await curlVia(t, id, `${denied.url}/denied`)).toEqual({ netError: 'net::ERR_NETWORK_ACCESS_DENIED' });
    expect(denied.hits).toEqual([]);

    const { browser, page } = await connect(s.body.cdp_ws_url);
    try {
      await page.goto(`http://localhost:${allowed.port}/page`);
      expect(await page.title()).toBe('127.0.0.1');
      expect(await webSocket(page, `ws://localhost:${allowed.port}/ws-listed`)).toBe('open');
      expect(await webSocket(page, `ws://127.0.0.2:${other.port}/ws-other`)).toBe('error');
      expect(other.hits).toEqual([]);
      // What a page sees: a plain request gets the forwarder's 403, a TLS tunnel Chromium's net error.
      const res = await page.goto(`${other.url}/navigate`);
      expect(res?.status()).toBe(403);
      expect(res?.headers()['x-kernel-proxy-error']).toBe('destination_blocked');
      const tls = await page.goto(`https://127.0.0.2:${other.port}/tls`).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
      expect(tls).toMatch(/ERR_TUNNEL_CONNECTION_FAILED/);
      expect(other.hits).toEqual([]);
    } finally {
      await browser.close();
    }
    await call(`/browsers/${id}`, 'DELETE');
  });

  it('PATCH replaces the list on the running browser, closing tunnels it no longer allows; null removes it for good', async () => {
    const s = await create({ network: { allowed_hosts: ['localhost'] } });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const id = s.body.session_id;
    const pid = t.engine.services.sessions.get(id)?.browser?.pid;
    const { browser, page } = await connect(s.body.cdp_ws_url);
    try {
      await page.goto(`http://localhost:${allowed.port}/before`);
      expect(await webSocket(page, `ws://localhost:${allowed.port}/ws-before`)).toBe('open');

      // The address instead of the name: the name that resolves to it is refused now (as a rebinding name would be).
      const replaced = await patch(id, { network: { allowed_hosts: ['127.0.0.1'] } });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect(replaced.body.network).toEqual({ allowed_hosts: ['127.0.0.1'] });
      expect(await page.evaluate(() => (globalThis as { socketClosed?: Promise<number> }).socketClosed)).toBeGreaterThan(0);
      expect(await curlVia(t, id, `http://localhost:${allowed.port}/by-name`)).toEqual(BLOCKED);
      expect(await curlVia(t, id, `http://127.0.0.1:${allowed.port}/by-ip`)).toEqual({ status: 200 });
      expect(allowed.hits).toContain('/by-ip');
      expect(allowed.hits).not.toContain('/by-name');
    } finally {
      await browser.close();
    }
    // No restart: the same browser process throughout.
    expect(t.engine.services.sessions.get(id)?.browser?.pid).toBe(pid);

    const removed = await patch(id, { network: { allowed_hosts: null } });
    expect(removed.status).toBe(200);
    expect('network' in removed.body).toBe(false);
    expect(await curlVia(t, id, `${other.url}/after-null`)).toEqual({ status: 200 });
    expect(other.hits).toContain('/after-null');
    const again = await patch(id, { network: { allowed_hosts: ['localhost'] } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'allowed_hosts_removed' });
    expect(await curlVia(t, id, `${other.url}/still-open`)).toEqual({ status: 200 });
    await call(`/browsers/${id}`, 'DELETE');
  });

  it('a session without a list can get one by PATCH', async () => {
    const s = await create({});
    const id = s.body.session_id;
    expect(await curlVia(t, id, `${other.url}/open`)).toEqual({ status: 200 });
    expect((await patch(id, { network: { allowed_hosts: ['localhost'] } })).status).toBe(200);
    expect(await curlVia(t, id, `${other.url}/closed`)).toEqual(BLOCKED);
    expect(other.hits).not.toContain('/closed');
    await call(`/browsers/${id}`, 'DELETE');
  });

  it('refuses bad lists, the create-only keys on PATCH, pools and pooled browsers with 4xx Error objects', async () => {
    const before = (await call('/browsers', 'GET')).body.length;
    const empty = await create({ network: { allowed_hosts: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'invalid_request', message: 'network.allowed_hosts: must list at least one host (omit it for no allowlist)' });
    const bad = await create({ network: { allowed_hosts: ['a.example', 'http://b.example/'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^network\.allowed_hosts\[1\]: 'http:\/\/b\.example\/' is not a host/);
    const notList = await create({ network: { allowed_hosts: 'a.example' } });
    expect(notList.status).toBe(400);
    expect((await call('/browsers', 'GET')).body.length).toBe(before);

    const s = await create({ network: { allowed_hosts: ['localhost'] } });
    const id = s.body.session_id;
    const emptyPatch = await patch(id, { network: { allowed_hosts: [] } });
    expect(emptyPatch.status).toBe(400);
    expect(emptyPatch.body.message).toBe('network.allowed_hosts: must list at least one host (send null to remove the allowlist)');
    const createOnly = await patch(id, { network: { private_hosts: [] } });
    expect(createOnly.status).toBe(400);
    expect(createOnly.body.message).toMatch(/^network\.private_hosts: cannot be changed after the session is created/);
    expect((await call(`/browsers/${id}`, 'GET')).body.network).toEqual({ allowed_hosts: ['localhost'] });
    await call(`/browsers/${id}`, 'DELETE');

    const pool = await call('/browser_pools', 'POST', { size: 1, network: { allowed_hosts: ['a.example'] } });
    expect(pool.status).toBe(400);
    expect(pool.body.message).toMatch(/^network\.allowed_hosts: is not supported on pools/);
    await t.client.browserPools.create({ name: 'allowlist-pool', size: 1, headless: true, fill_rate_per_minute: 100, timeout_seconds: 120 });
    const acquired = await t.client.browserPools.acquire('allowlist-pool', {});
    const pooled = await patch(acquired.session_id, { network: { allowed_hosts: ['localhost'] } });
    expect(pooled.status).toBe(409);
    expect(pooled.body).toMatchObject({ code: 'pooled_browser' });
    await t.client.browserPools.release('allowlist-pool', { session_id: acquired.session_id });
    await t.client.browserPools.delete('allowlist-pool', { force: true });
  });

  it('an engine without the jail refuses it (its browser could go around the list)', async () => {
    const unjailed = await startTestEngine({ insecureNoJail: true });
    try {
      const refused = await unjailed.api('/browsers', { method: 'POST', json: { headless: true, network: { allowed_hosts: ['localhost'] } } });
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ code: 'allowed_hosts_unsupported' });
      const s = await unjailed.client.browsers.create({ headless: true });
      const patched = await unjailed.api(`/browsers/${s.session_id}`, { method: 'PATCH', json: { network: { allowed_hosts: ['localhost'] } } });
      expect(patched.status).toBe(422);
      expect(await curlVia(unjailed, s.session_id, `${other.url}/unjailed`)).toEqual({ status: 200 });
      await unjailed.client.browsers.deleteByID(s.session_id);
    } finally {
      await unjailed.stop();
    }
  });
});
