/**
 * HTTP through the browser: `client.browsers.curl` (routed by the official client straight to
 * the session's `base_url` with its JWT) and `client.browsers.fetch` (`/curl/raw`) against a
 * local test server. Proves the request is the browser's own — its cookies are sent, cookies
 * set by the target land in the session (a Playwright page sees them), its user agent — and
 * covers methods, bodies, headers, binary bodies, redirects, network errors with Chromium's
 * error numbers, timeouts, and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { openBrowserSession } from '../../helpers/browser-session.js';

let te: TestEngine;
let id: string;
let target: string;
let server: LocalServer;
let browser: Browser;
const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];

beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url!, 'http://x');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      if (u.pathname === '/set-cookie') {
        res.writeHead(200, { 'set-cookie': ['session_token=abc123; Path=/; HttpOnly', 'pref=dark; Path=/; SameSite=Strict'], 'content-type': 'text/plain' });
        return res.end('cookies set');
      }
      if (u.pathname === '/binary') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(BINARY);
      }
      if (u.pathname === '/redirect') {
        res.writeHead(302, { location: '/echo' });
        return res.end();
      }
      if (u.pathname === '/slow') return void setTimeout(() => res.end('late'), 5_000);
      if (u.pathname === '/status/418') {
        res.writeHead(418, { 'x-teapot': 'yes' });
        return res.end('short and stout');
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['one', 'two'] });
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  target = server.url;
  te = await startTestEngine();
  ({ id, browser } = await openBrowserSession(te));
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await te?.stop();
  await server?.close();
});

async function failure(p: Promise<unknown>): Promise<{ status: number; error: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status?: number; error?: Record<string, unknown> };
    return { status: e.status ?? -1, error: e.error ?? {} };
  }
  throw new Error('expected the call to fail');
}

describe('browsers.curl', () => {
  it('goes through the browser: its user agent, and cookies stored both ways', async () => {
    const res = await te.client.browsers.curl(id, { url: `${target}/set-cookie` });
    expect(res).toMatchObject({ status: 200, body: 'cookies set' });
    expect(res.headers['Set-Cookie']).toEqual(['session_token=abc123; Path=/; HttpOnly', 'pref=dark; Path=/; SameSite=Strict']);
    expect(res.duration_ms).toBeGreaterThanOrEqual(0);

    const echo = await te.client.browsers.curl(id, { url: `${target}/echo` });
    const sent = JSON.parse(echo.body) as { headers: Record<string, string> };
    expect(sent.headers.cookie).toBe('session_token=abc123; pref=dark');
    expect(sent.headers['user-agent']).toMatch(/Chrome\/\d+/);
    expect(sent.headers['sec-ch-ua']).toContain('Chromium');
    expect(echo.headers['X-Multi']).toEqual(['one', 'two']);

    // The cookies live in the session's browser: a Playwright page sees them.
    const cookies = await browser.contexts()[0].cookies(target);
    expect(cookies.map((c) => [c.name, c.value]).sort()).toEqual([
      ['pref', 'dark'],
      ['session_token', 'abc123'],
    ]);
    // ...and cookies the browser got elsewhere are sent by curl.
    await browser.contexts()[0].addCookies([{ name: 'from_page', value: 'yes', url: target }]);
    const again = JSON.parse((await te.client.browsers.curl(id, { url: `${target}/echo` })).body) as { headers: Record<string, string> };
    expect(again.headers.cookie).toContain('from_page=yes');
  });

  it('arrives over the session JWT route, without the bearer key', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    await te.client.browsers.curl(id, { url: `${target}/echo?via=jwt` });
    const entries = async () => {
      const page = await te.client.auditLogs.list({ start: before, end: new Date(Date.now() + 60_000).toISOString(), auth_strategy: 'session_jwt' });
      return page.getPaginatedItems().filter((e) => e.path.startsWith(`/browsers/${id}/curl?jwt=`) && e.method === 'POST');
    };
    await expect.poll(async () => (await entries()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await entries())[0]).toMatchObject({ auth_strategy: 'session_jwt', status: 200 });
  });

  it('sends methods, bodies and headers, and encodes binary bodies as base64', async () => {
    const post = await te.client.browsers.curl(id, {
      url: `${target}/echo`,
      method: 'POST',
      body: '{"a":1}',
      headers: { 'Content-Type': 'application/json', 'X-Custom': 'hello', Referer: `${target}/from` },
    });
    const got = JSON.parse(post.body) as { method: string; headers: Record<string, string>; body: string };
    expect(got).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(got.headers).toMatchObject({ 'content-type': 'application/json', 'x-custom': 'hello', referer: `${target}/from` });
    expect(got.headers['x-browserdeck-curl']).toBeUndefined();
    for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const r = await te.client.browsers.curl(id, { url: `${target}/echo`, method, body: method === 'OPTIONS' ? undefined : 'x' });
      expect(JSON.parse(r.body).method).toBe(method);
    }
    const head = await te.client.browsers.curl(id, { url: `${target}/echo`, method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    const bin = await te.client.browsers.curl(id, { url: `${target}/binary`, response_encoding: 'base64' });
    expect(Buffer.from(bin.body, 'base64').equals(BINARY)).toBe(true);
    const teapot = await te.client.browsers.curl(id, { url: `${target}/status/418` });
    expect(teapot).toMatchObject({ status: 418, body: 'short and stout', headers: { 'X-Teapot': ['yes'] } });
    const redirect = await te.client.browsers.curl(id, { url: `${target}/redirect` });
    expect(redirect).toMatchObject({ status: 302, headers: { Location: ['/echo'] } });
  });

  it('answers network failures with Chromium error numbers and names', async () => {
    // A port nothing listens on.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await failure(te.client.browsers.curl(id, { url: `http://127.0.0.1:${port}/` }));
    expect(refused).toMatchObject({ status: 502, error: { code: 'network_error', net_error: -102, net_error_name: 'net::ERR_CONNECTION_REFUSED' } });
    const unresolved = await failure(te.client.browsers.curl(id, { url: 'http://no-such-host.invalid/' }));
    expect(unresolved.error).toMatchObject({ net_error: -105, net_error_name: 'net::ERR_NAME_NOT_RESOLVED' });
    const unsafe = await failure(te.client.browsers.curl(id, { url: 'http://127.0.0.1:6000/' }));
    expect(unsafe.error).toMatchObject({ net_error: -312, net_error_name: 'net::ERR_UNSAFE_PORT' });
    const slow = await failure(te.client.browsers.curl(id, { url: `${target}/slow`, timeout_ms: 300 }));
    expect(slow).toMatchObject({ status: 504, error: { net_error: -7, net_error_name: 'net::ERR_TIMED_OUT' } });
    // The session keeps working afterwards.
    expect((await te.client.browsers.curl(id, { url: `${target}/echo` })).status).toBe(200);
  });

  it('rejects bad input', async () => {
    const bad: [string, () => Promise<unknown>][] = [
      ['no url', () => te.client.browsers.curl(id, {} as never)],
      ['relative url', () => te.client.browsers.curl(id, { url: '/echo' })],
      ['ftp url', () => te.client.browsers.curl(id, { url: 'ftp://example.com/' })],
      ['credentials', () => te.client.browsers.curl(id, { url: 'http://u:p@127.0.0.1/' })],
      ['bad method', () => te.client.browsers.curl(id, { url: target, method: 'TRACE' as never })],
      ['GET with body', () => te.client.browsers.curl(id, { url: target, body: 'x' })],
      ['bad encoding', () => te.client.browsers.curl(id, { url: target, response_encoding: 'hex' as never })],
      ['zero timeout', () => te.client.browsers.curl(id, { url: target, timeout_ms: 0 })],
      ['bad headers', () => te.client.browsers.curl(id, { url: target, headers: { a: 1 } as never })],
    ];
    for (const [what, call] of bad) expect([what, (await failure(call())).status]).toEqual([what, 400]);
    expect((await failure(te.client.browsers.curl('no-such-session', { url: target }))).status).toBe(404);
  });
});

describe('browsers.fetch (/curl/raw)', () => {
  it('passes method, headers and raw body through and streams the answer back', async () => {
    seen.length = 0;
    const res = await te.client.browsers.fetch(id, `${target}/echo?x=1`, {
      method: 'POST',
      body: Buffer.from([0, 1, 2, 255]),
      headers: { 'content-type': 'application/octet-stream', 'x-custom': 'raw' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-multi')).toBe('one, two');
    const echoed = (await res.json()) as { method: string; url: string; headers: Record<string, string> };
    expect(echoed).toMatchObject({ method: 'POST', url: '/echo?x=1' });
    expect(echoed.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'x-custom': 'raw' });
    expect(echoed.headers['user-agent']).toMatch(/Chrome\/\d+/);
    expect(echoed.headers.authorization).toBeUndefined();
    // The raw body reached the target byte for byte.
    expect([...seen.find((r) => r.url === '/echo?x=1')!.body]).toEqual([0, 1, 2, 255]);
    const bin = await te.client.browsers.fetch(id, `${target}/binary`);
    expect(Buffer.from(await bin.arrayBuffer()).equals(BINARY)).toBe(true);
    // The session's cookies go along here too.
    const withCookie = (await (await te.client.browsers.fetch(id, `${target}/echo`)).json()) as { headers: Record<string, string> };
    expect(withCookie.headers.cookie).toContain('session_token=abc123');
  });

  it('forwards an Authorization header meant for the target when the JWT authenticates the call', async () => {
    const s = await te.client.browsers.retrieve(id);
    const jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
    const res = await fetch(`${s.base_url}/curl/raw?jwt=${encodeURIComponent(jwt)}&url=${encodeURIComponent(`${target}/echo`)}`, {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    const r = (await res.json()) as { headers: Record<string, string> };
    expect(r.headers.authorization).toBe('Basic dXNlcjpwYXNz');
  });

  it('answers network errors and bad input', async () => {
    const unresolved = await failure(te.client.browsers.fetch(id, 'http://no-such-host.invalid/x'));
    expect(unresolved).toMatchObject({ status: 502, error: { net_error: -105, net_error_name: 'net::ERR_NAME_NOT_RESOLVED' } });
    const slow = await failure(te.client.browsers.fetch(id, `${target}/slow`, { timeout_ms: 300 }));
    expect(slow).toMatchObject({ status: 504, error: { net_error: -7 } });
    // Direct calls with the API key: a missing url is a 400, an unknown session a 404.
    expect((await te.api(`/browsers/${id}/curl/raw`)).status).toBe(400);
    expect((await te.api(`/browsers/${id}/curl/raw?url=${encodeURIComponent('file:///etc/passwd')}`)).status).toBe(400);
    expect((await te.api(`/browsers/nope/curl/raw?url=${encodeURIComponent(target)}`)).status).toBe(404);
    // With the API key, the key itself is never forwarded to the target.
    const viaKey = (await (await te.api(`/browsers/${id}/curl/raw?url=${encodeURIComponent(`${target}/echo`)}`)).json()) as { headers: Record<string, string> };
    expect(viaKey.headers.authorization).toBeUndefined();
  });
});
