/**
 * Telemetry after SDK 0.84 (Kernel spec §6), written as raw HTTP and a raw CDP WebSocket from the
 * spec (the installed SDK is 0.84): the `platform` category and `control.cdp.excluded_methods`
 * (§6.1), the `type` filter (§6.2), `platform_api_call`, `api_call.code`, `cdp_command` with
 * sanitized arguments, `page_crashed`, `proxy_error`, `captcha_challenge_result` and
 * `challenge_id` (§6.3, §6.4), and the connection ids and loss counters of cdp_connect/disconnect.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Session } from '../../../src/shared/wire/sessions.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer } from '../../helpers/local-server.js';
import { startSite, type Envelope } from './telemetry-helpers.js';

type Json = Record<string, unknown>;
/** A CDP answer as this test reads it: the result of the command it sent. */
type CdpAnswer = { result: Record<string, unknown> & { sessionId?: string; targetInfos?: unknown[] }; error?: { code: number; message: string } };
const CAPTCHA_PAGE = `<!doctype html><html><body><div class="g-recaptcha" data-sitekey="x"></div>
<textarea name="g-recaptcha-response" style="display:none"></textarea></body></html>`;

let te: TestEngine;
let site: Awaited<ReturnType<typeof startSite>>;
let session: Session;
const created: string[] = [];

/** A call whose answer the test reads as `T` (what the route's schema says it is; the status is asserted first). */
async function call<T = unknown>(method: string, path: string, json?: unknown): Promise<{ status: number; body: T }> {
  const res = await te.api(path, { method, json });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as T };
}
async function createSession(body: Json): Promise<Session> {
  const r = await call<Session>('POST', '/browsers', { headless: true, timeout_seconds: 300, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  created.push(r.body.session_id);
  return r.body;
}
async function events(id: string, query: string): Promise<Envelope[]> {
  const r = await call<Envelope[]>('GET', `/browsers/${id}/telemetry/events?since=30m&limit=1000&${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}
/** Polls the events endpoint until `pred` holds for some event of the query. */
async function waitFor(id: string, query: string, pred: (e: Envelope) => boolean = () => true): Promise<Envelope> {
  let hit: Envelope | undefined;
  await expect.poll(async () => (hit = (await events(id, query)).find(pred)), { timeout: 30_000, interval: 200 }).toBeDefined();
  return hit!;
}

/** A raw CDP client of the engine's CDP proxy. */
async function cdpClient(url: string) {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  let n = 0;
  const pending = new Map<number, (m: CdpAnswer) => void>();
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as CdpAnswer & { id?: number };
    if (m.id !== undefined) pending.get(m.id)?.(m);
  });
  const send = (method: string, params?: unknown, sessionId?: string): Promise<CdpAnswer> =>
    new Promise((resolve) => {
      const id = ++n;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, ...(params !== undefined ? { params } : {}), ...(sessionId ? { sessionId } : {}) }));
    });
  const { result } = await send('Target.getTargets');
  const tab = (result.targetInfos as Array<{ type: string; targetId: string }>).find((t) => t.type === 'page')!;
  const attached = await send('Target.attachToTarget', { targetId: tab.targetId, flatten: true });
  return { ws, send, tabId: tab.targetId as string, sid: attached.result.sessionId as string, close: () => (ws.close(), once(ws, 'close')) };
}

beforeAll(async () => {
  site = await startSite({ '/captcha': CAPTCHA_PAGE });
  te = await startTestEngine();
  session = await createSession({
    telemetry: {
      browser: { platform: { enabled: true }, page: { enabled: true }, control: { cdp: { excluded_methods: ['Input.dispatchKeyEvent'] } } },
    },
  });
}, 120_000);

afterAll(async () => {
  for (const id of created) await te?.api(`/browsers/${id}`, { method: 'DELETE' }).catch(() => {});
  await te?.stop();
  await site?.close();
});

describe('categories (§6.1)', () => {
  it('reports platform and the exclusion list; PATCH merges the list apart from enabled', async () => {
    expect(session.telemetry?.browser?.platform).toEqual({ enabled: true });
    expect(session.telemetry?.browser?.control).toEqual({ enabled: true, cdp: { excluded_methods: ['Input.dispatchKeyEvent'] } });
    const plain = await createSession({});
    expect(plain.telemetry?.browser).toMatchObject({ platform: { enabled: false }, control: { enabled: true, cdp: { excluded_methods: [] } } });
    await call('DELETE', `/browsers/${plain.session_id}`);

    const id = session.session_id;
    const kept = await call<Session>('PATCH', `/browsers/${id}`, { telemetry: { browser: { control: { enabled: true } } } });
    expect(kept.body.telemetry?.browser?.control?.cdp?.excluded_methods).toEqual(['Input.dispatchKeyEvent']);
    const bad = await call('PATCH', `/browsers/${id}`, { telemetry: { browser: { control: { cdp: { excluded_methods: ['Runtime.evaluate'] } } } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', message: expect.any(String) });
    expect((await call<Session>('GET', `/browsers/${id}`)).body.telemetry?.browser?.control?.cdp?.excluded_methods).toEqual(['Input.dispatchKeyEvent']);
  });
});

describe('API calls (§6.3 platform_api_call, §6.4 api_call)', () => {
  it('splits calls that manage the session from calls that drive the browser, and carries the executed code', async () => {
    const id = session.session_id;
    expect((await call('GET', `/browsers/${id}`)).status).toBe(200);
    const platform = await waitFor(id, 'type=platform_api_call', (e) => e.event.data?.operation_id === 'GET /browsers/:id');
    expect(platform.event).toMatchObject({ category: 'platform', source: { kind: 'kernel_api' } });
    expect(platform.event.data).toEqual({ duration_ms: expect.any(Number), operation_id: 'GET /browsers/:id', request_id: expect.any(String), status: 200 });

    const long = 'return 1; // ' + 'é'.repeat(5000);
    expect((await call('POST', `/browsers/${id}/playwright/execute`, { code: 'return 40 + 2' })).body).toMatchObject({ success: true, result: 42 });
    expect((await call('POST', `/browsers/${id}/playwright/execute`, { code: long })).status).toBe(200);
    const short = await waitFor(id, 'type=api_call', (e) => e.event.data?.code === 'return 40 + 2');
    expect(short.event.category).toBe('control');
    const cut = await waitFor(id, 'type=api_call', (e) => String(e.event.data?.code).startsWith('return 1; //'));
    const code = String(cut.event.data!.code);
    expect(code.endsWith('...[truncated]')).toBe(true);
    const kept = code.slice(0, -'...[truncated]'.length);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(8192);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(8180);
    expect(long.startsWith(kept)).toBe(true);

    // `type` is ANDed with `category`, repeatable and comma-joined; reading telemetry records nothing.
    expect(await events(id, 'category=control&type=platform_api_call')).toEqual([]);
    const both = await events(id, 'type=api_call&type=platform_api_call');
    expect(new Set(both.map((e) => e.event.type))).toEqual(new Set(['api_call', 'platform_api_call']));
    expect((await events(id, 'type=api_call,platform_api_call')).length).toBe(both.length);
    expect(both.some((e) => String(e.event.data?.operation_id).includes('telemetry'))).toBe(false);
    expect((await call('GET', `/browsers/${id}/telemetry/events?type=Not-A-Type`)).status).toBe(400);
    expect((await call('GET', `/browsers/${id}/telemetry/events?category=platform`)).status).toBe(200);
  });
});

describe('CDP commands (§6.3 cdp_command, §6.4 cdp_connect/disconnect)', () => {
  it('reports each browser-control command sanitized, in order, skipping excluded methods and counting losses', async () => {
    const id = session.session_id;
    const c = await cdpClient(session.cdp_ws_url);
    const connect = await waitFor(id, 'type=cdp_connect', (e) => !!e.event.data?.connection_id);
    const connection = String(connect.event.data!.connection_id);
    await c.send('Page.bringToFront', undefined, c.sid);
    await c.send('Page.navigate', { url: `${site.url}/?token=secret-token` }, c.sid);
    // Events are recorded as the proxy relays the commands: their answers (input waits for the
    // renderer) do not matter here.
    void c.send('Input.insertText', { text: 'hunter2' }, c.sid);
    void c.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'Enter' }, c.sid);
    void c.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 5, y: 6 }, c.sid);
    expect((await c.send('Input.insertText', { text: 5 })).error).toBeDefined();
    await c.close();

    const gone = await waitFor(id, 'type=cdp_disconnect', (e) => e.event.data?.connection_id === connection);
    expect(gone.event.data).toMatchObject({ reason: 'client_close', telemetry_excluded: 1, telemetry_dropped: 1 });
    const commands = (await events(id, 'type=cdp_command')).filter((e) => e.event.data?.connection_id === connection);
    expect(commands.map((e) => e.event.data!.method)).toEqual(['Page.bringToFront', 'Page.navigate', 'Input.insertText', 'Input.dispatchMouseEvent']);
    commands.shift();
    expect(commands[0].event).toMatchObject({ category: 'control', type: 'cdp_command' });
    expect(commands[0].event.data).toEqual({
      method: 'Page.navigate',
      command_id: expect.any(Number),
      connection_id: connection,
      session_id: c.sid,
      url_scheme: 'http',
    });
    expect(commands[1].event.data).toMatchObject({ method: 'Input.insertText', text_length: 7 });
    expect(commands[2].event.data).toMatchObject({ method: 'Input.dispatchMouseEvent', event_type: 'mouseMoved', x: 5, y: 6 });
    const text = JSON.stringify(commands);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('secret-token');
  });
});

describe('page_crashed (§6.3)', () => {
  it('reports a tab whose renderer died while the browser lives on', async () => {
    const id = session.session_id;
    const c = await cdpClient(session.cdp_ws_url);
    const url = `${site.url}/about-to-crash`;
    await c.send('Page.navigate', { url }, c.sid);
    await waitFor(id, 'type=page_navigation', (e) => e.event.data?.url === url);
    void c.send('Page.crash', undefined, c.sid);
    const crashed = await waitFor(id, 'type=page_crashed', (e) => e.event.data?.target_id === c.tabId);
    expect(crashed.event).toMatchObject({ category: 'page', source: { kind: 'cdp', metadata: { target_id: c.tabId } } });
    expect(crashed.event.data).toEqual({ target_id: c.tabId, target_type: 'page', url });
    expect((await c.send('Target.getTargets')).result.targetInfos?.length).toBeGreaterThan(0);
    await c.close();
    expect((await call('GET', `/browsers/${id}`)).status).toBe(200);
  });
});

describe('captcha (§6.3, §6.4)', () => {
  it('gives a visible challenge one id across its events and reports its outcome', async () => {
    const id = session.session_id;
    const c = await cdpClient(session.cdp_ws_url);
    await c.send('Page.navigate', { url: `${site.url}/captcha` }, c.sid);
    const found = await waitFor(id, 'type=captcha_detected', (e) => e.event.data?.website_path === '/captcha');
    const challenge = found.event.data!.challenge_id;
    expect(challenge).toEqual(expect.any(String));
    await c.send('Runtime.evaluate', { expression: `document.querySelector('[name=g-recaptcha-response]').value = 'token'` }, c.sid);
    const outcome = await waitFor(id, 'type=captcha_challenge_result', (e) => e.event.data?.challenge_id === challenge);
    expect(outcome.event.data).toEqual({
      captcha_type: 'recaptcha_v2',
      challenge_id: challenge,
      status: 'solved',
      duration_ms: expect.any(Number),
      website_host: new URL(site.url).host,
      website_path: '/captcha',
    });
    const result = await waitFor(id, 'type=captcha_solve_result', (e) => e.event.data?.challenge_id === challenge);
    expect(result.event.data).toMatchObject({ status: 'success' });
    expect(await events(id, 'type=captcha_solve_started')).toEqual([]);
    await c.close();
  });
});

describe('proxy_error (§6.3)', () => {
  it('reports the egress forwarder failing to reach the session proxy', async () => {
    const dead = await startLocalServer({});
    const port = Number(new URL(dead.url).port);
    await dead.close();
    const proxy = await call<{ id: string }>('POST', '/proxies', { type: 'custom', name: 'dead-proxy', config: { host: '127.0.0.1', port } });
    expect(proxy.status, JSON.stringify(proxy.body)).toBe(200);
    const s = await createSession({ proxy_id: proxy.body.id, telemetry: { browser: { network: { enabled: true } } } });
    const c = await cdpClient(s.cdp_ws_url);
    await c.send('Page.navigate', { url: `${site.url}/through-the-proxy` }, c.sid);
    const err = await waitFor(s.session_id, 'type=proxy_error');
    expect(err.event).toMatchObject({ category: 'network', type: 'proxy_error' });
    expect(err.event.data).toMatchObject({ code: 'proxy_unavailable', status: 502, method: 'GET', request_id: expect.any(String), resource_type: 'Document' });
    await c.close();
  });
});
