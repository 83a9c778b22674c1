/**
 * A jailed page or app may not reach the engine host's loopback unless the operator allows it
 * (`egressLoopback`, `--egress-allow-loopback`): with the engine's default, the engine's own
 * port, a server on 127.0.0.1, `localhost`, `[::1]` and a WebSocket to a loopback server are all
 * refused by the session's egress forwarder after resolution (its 403 with
 * `x-browserdeck-net-error`, or a refused tunnel), for navigations, `/curl` and the page's `fetch()`;
 * nothing reaches the server; the 403 page and `/curl`'s error name `--egress-allow-loopback`. The forwarder itself refuses every spelling and every way in
 * (absolute-form requests, CONNECT, WebSocket upgrades, IPv4-mapped and "this host" addresses, a
 * session's `private_hosts`, a proxy or route whose proxy sits on loopback). An app's fetch to a
 * loopback server is refused while it still reaches KERNEL_BASE_URL; OTLP export to a loopback
 * collector still works. A proxy check does not connect to a proxy on loopback. An engine allowing
 * loopback (the test helper's default) reaches it all.
 * Before, every one of these reached the host's loopback.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Page } from 'playwright-core';
import { WebSocketServer } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { startLocalForwarder, type Route } from '../../../src/engine/runtime/proxy-forwarder/local-forwarder.js';
import { tenantEgressPolicyOf } from '../../../src/engine/runtime/proxy-forwarder/egress-policy.js';
import { hostAddressList } from '../../../src/engine/runtime/proxy-forwarder/host-addresses.js';
import { DEFAULT_EGRESS_DENY } from '../../../src/engine/config.js';
import { startOtlpReceiver, type OtlpReceiver } from '../telemetry-export/otlp-receiver.js';
import { deploy } from '../apps/app-helpers.js';

const PAGE = '<!doctype html><title>loopback page</title>';

/** A loopback server with a page, a CORS-open JSON endpoint and a WebSocket echo; counts every TCP connection it accepts. */
async function loopbackServer(host: string): Promise<LocalServer & { connections: () => number }> {
  let connections = 0;
  const web = await startLocalServer(
    {
      '/page': PAGE,
      '/data': (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end('{"reached":true}'),
    },
    host,
  );
  web.server.on('connection', () => connections++);
  const wss = new WebSocketServer({ server: web.server });
  wss.on('connection', (ws) => ws.on('message', (m) => ws.send(`echo ${String(m)}`)));
  return { ...web, url: web.url.replace(`//${host}:`, `//${net.isIPv6(host) ? `[${host}]` : host}:`), connections: () => connections };
}

async function hasIpv6Loopback(): Promise<boolean> {
  const s = net.createServer();
  return new Promise((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(0, '::1', () => s.close(() => resolve(true)));
  });
}

/** A WebSocket from the page: 'open:<echo>' or 'failed' (error then close, as a refused tunnel ends it). */
function pageWebSocket(page: Page, url: string): Promise<string> {
  return page.evaluate(
    (u) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(u);
        ws.onopen = () => ws.send('hi');
        ws.onmessage = (e) => {
          resolve(`open:${String(e.data)}`);
          ws.close();
        };
        ws.onerror = () => resolve('failed');
      }),
    url,
  );
}

/** `fetch()` from the page: the body, or the error's name. */
function pageFetch(page: Page, url: string): Promise<string> {
  return page.evaluate(
    (u) =>
      fetch(u).then(
        (r) => r.text(),
        (e: Error) => `error:${e.name}`,
      ),
    url,
  );
}

let web: LocalServer & { connections: () => number };
let web6: (LocalServer & { connections: () => number }) | undefined;
/** The engine's default: loopback refused (what createEngine() and `npm run serve` do without the flag). */
let strict: TestEngine;
/** Loopback allowed (the test helper's default, and the desktop app's). */
let open: TestEngine;
let collector: OtlpReceiver;

beforeAll(async () => {
  web = await loopbackServer('127.0.0.1');
  if (await hasIpv6Loopback()) web6 = await loopbackServer('::1');
  collector = await startOtlpReceiver();
  // Unset, as createEngine() and `npm run serve` without the flag or its variable leave it (the helper's own default is true).
  const { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: _unset, ...env } = process.env;
  strict = await startTestEngine({ egressLoopback: undefined, env: { ...env, BROWSERDECK_OTLP_EXPORT_DELAY_MS: '200' } });
  expect(strict.engine.config.egressLoopback).toBe(false);
  open = await startTestEngine();
});
afterAll(async () => {
  await strict?.stop();
  await open?.stop();
  await web?.close();
  await web6?.close();
  await collector?.close();
});

describe('session browsers', () => {
  async function withPage<T>(te: TestEngine, fn: (page: Page, id: string) => Promise<T>): Promise<T> {
    const s = await te.client.browsers.create({ headless: true });
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      return await fn(browser.contexts()[0].pages()[0], s.session_id);
    } finally {
      await browser.close();
      await te.client.browsers.deleteByID(s.session_id);
    }
  }

  const targets = (te: TestEngine): Array<[string, string]> => {
    const port = new URL(web.url).port;
    const list: Array<[string, string]> = [
      ['the engine itself', `${te.url}/healthz`],
      ['a server on 127.0.0.1', `${web.url}/page`],
      ['localhost', `http://localhost:${port}/page`],
      ['0.0.0.0', `http://0.0.0.0:${port}/page`],
      ['IPv4-mapped', `http://[::ffff:127.0.0.1]:${port}/page`],
    ];
    if (web6) list.push(['[::1]', `${web6.url}/page`]);
    return list;
  };

  it('with the default, cannot load the engine, loopback servers, localhost or [::1]: the forwarder refuses them', async () => {
    const before = web.connections() + (web6?.connections() ?? 0);
    await withPage(strict, async (page, id) => {
      for (const [what, url] of targets(strict)) {
        const res = await page.goto(url);
        expect(res?.status(), what).toBe(403);
        expect(res?.headers()['x-browserdeck-net-error'], what).toBe('net::ERR_NETWORK_ACCESS_DENIED');
        const text = await res?.text();
        expect(text, what).toMatch(/denied by the engine's egress policy \((127\.0\.0\.0\/8|::1\/128|0\.0\.0\.0\/8)\)/);
        // The page names what opens it (issue 27: a local dev server's 403 named no way out).
        expect(text, what).toContain('--egress-allow-loopback (BROWSERDECK_EGRESS_ALLOW_LOOPBACK=1)');
      }
      // The curl API goes through the same browser, so the same forwarder.
      const curl = await strict.client.browsers.curl(id, { url: `${web.url}/page` }).then(
        () => ({}),
        (e: { error?: Record<string, unknown> }) => e.error ?? {},
      );
      expect(curl).toMatchObject({ net_error_name: 'net::ERR_NETWORK_ACCESS_DENIED', message: expect.stringContaining('--egress-allow-loopback') });
      // A TLS tunnel (CONNECT) to the same server is refused too.
      const tls = await page.goto(`https://localhost:${new URL(web.url).port}/page`).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
      expect(tls).toMatch(/ERR_TUNNEL_CONNECTION_FAILED/);
    });
    expect(web.connections() + (web6?.connections() ?? 0)).toBe(before);
  });

  it("with the default, the page's fetch() and WebSocket to loopback are refused", async () => {
    const before = web.connections();
    await withPage(strict, async (page) => {
      // The response is cross-origin without CORS headers, so only the network layer shows it: the forwarder's 403.
      const cdp = await page.context().newCDPSession(page);
      const answers: Array<{ statusCode: number; headers: Record<string, string> }> = [];
      cdp.on('Network.responseReceivedExtraInfo', (e) => answers.push(e));
      await cdp.send('Network.enable');
      const logged: string[] = [];
      page.on('console', (m) => logged.push(m.text()));
      expect(await pageFetch(page, `${web.url}/data`)).toBe('error:TypeError');
      expect(answers).toMatchObject([{ statusCode: 403, headers: { 'x-browserdeck-net-error': 'net::ERR_NETWORK_ACCESS_DENIED' } }]);
      // A WebSocket goes through a CONNECT tunnel, which the forwarder refuses (Chromium's words for a refused tunnel).
      expect(await pageWebSocket(page, web.url.replace('http:', 'ws:'))).toBe('failed');
      await pollUntil(
        "the WebSocket's failure in the console",
        async () => logged,
        (c) => c.some((line) => line.includes('Establishing a tunnel via proxy server failed')),
      );
      expect(await pageWebSocket(page, `ws://localhost:${new URL(web.url).port}`)).toBe('failed');
    });
    expect(web.connections()).toBe(before);
  });

  it('with egressLoopback, the same pages, fetch() and WebSocket reach them', async () => {
    await withPage(open, async (page) => {
      for (const [what, url] of targets(open)) {
        const res = await page.goto(url);
        expect(res?.status(), what).toBe(200);
      }
      expect(await pageFetch(page, `${web.url}/data`)).toBe('{"reached":true}');
      expect(await pageWebSocket(page, web.url.replace('http:', 'ws:'))).toBe('open:echo hi');
    });
  });
});

/** One request to a forwarder as Chromium sends it: absolute form, CONNECT, or a WebSocket upgrade in absolute form. */
function viaForwarder(port: number, how: 'GET' | 'CONNECT' | 'WS', host: string, targetPort: number): Promise<{ status: number; netError?: string }> {
  const authority = `${host}:${targetPort}`;
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      agent: false,
      method: how === 'CONNECT' ? 'CONNECT' : 'GET',
      path: how === 'CONNECT' ? authority : `http://${authority}/page`,
      headers: {
        host: authority,
        ...(how === 'WS'
          ? { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' }
          : {}),
      },
    });
    const done = (res: http.IncomingMessage, socket?: net.Socket): void => {
      socket?.destroy();
      res.resume();
      resolve({ status: res.statusCode ?? 0, netError: res.headers['x-browserdeck-net-error'] as string | undefined });
    };
    req.on('response', (res) => done(res));
    req.on('connect', done);
    req.on('upgrade', done);
    req.on('error', reject);
    req.end();
  });
}

describe("the forwarder's loopback refusal", () => {
  const loopbackHosts = ['127.0.0.1', '127.9.9.9', 'localhost', '0.0.0.0', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::1]', '[::]'];

  async function withForwarder<T>(route: Route, allowLoopback: boolean, fn: (port: number) => Promise<T>): Promise<T> {
    const f = await startLocalForwarder(route, {
      policy: tenantEgressPolicyOf(DEFAULT_EGRESS_DENY, allowLoopback, hostAddressList([])),
      connectTimeoutMs: 3000,
    });
    try {
      return await fn(f.port);
    } finally {
      await f.close();
    }
  }

  it('refuses every spelling of loopback, for plain requests, CONNECT tunnels and WebSocket upgrades; allowed, requests and tunnels connect', async () => {
    const port = Number(new URL(web.url).port);
    const before = web.connections();
    await withForwarder({ upstream: null, bypass: [] }, false, async (fwd) => {
      for (const host of loopbackHosts)
        for (const how of ['GET', 'CONNECT', 'WS'] as const) expect(await viaForwarder(fwd, how, host, port), `${how} ${host}`).toMatchObject({ status: 403 });
      expect(await viaForwarder(fwd, 'GET', 'localhost', port)).toEqual({ status: 403, netError: 'net::ERR_NETWORK_ACCESS_DENIED' });
    });
    expect(web.connections()).toBe(before);
    await withForwarder({ upstream: null, bypass: [] }, true, async (fwd) => {
      for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
        expect(await viaForwarder(fwd, 'GET', host, port), host).toMatchObject({ status: 200 });
        expect(await viaForwarder(fwd, 'CONNECT', host, port), host).toMatchObject({ status: 200 });
      }
    });
  });

  it('private_hosts, a proxy or a proxy route on loopback do not reopen it', async () => {
    const port = Number(new URL(web.url).port);
    const before = web.connections();
    // A session's private hosts go direct, past its proxy: still resolved and checked.
    const unreachableProxy = { protocol: 'http' as const, host: '198.51.100.1', port: 3128 };
    const privateRoute: Route = { upstream: unreachableProxy, bypass: [], privateHosts: ['localhost', '127.0.0.1', '[::1]'] };
    await withForwarder(privateRoute, false, async (fwd) => {
      for (const host of ['localhost', '127.0.0.1', '[::1]'])
        for (const how of ['GET', 'CONNECT'] as const) expect(await viaForwarder(fwd, how, host, port), `${how} ${host}`).toMatchObject({ status: 403 });
    });
    // A proxy (or a route's proxy) whose address is the host's loopback: the engine's own port or any local service.
    const loopbackProxy = { protocol: 'http' as const, host: 'localhost', port };
    for (const route of [
      { upstream: loopbackProxy, bypass: [] },
      { upstream: null, bypass: [], routes: [{ hosts: ['example.test'], upstream: loopbackProxy }] },
    ] satisfies Route[])
      await withForwarder(route, false, async (fwd) => {
        for (const how of ['GET', 'CONNECT'] as const) expect(await viaForwarder(fwd, how, 'example.test', 443), how).toMatchObject({ status: 403 });
      });
    // A destination written as a loopback address is refused before any proxy is asked.
    await withForwarder({ upstream: unreachableProxy, bypass: [] }, false, async (fwd) => {
      for (const how of ['GET', 'CONNECT'] as const) expect(await viaForwarder(fwd, how, '127.0.0.1', port), how).toMatchObject({ status: 403 });
    });
    expect(web.connections()).toBe(before);
  });
});

const APP = `
import Kernel from '@onkernel/sdk';
const kernel = new Kernel();
const app = kernel.app('loopback');
const get = async (url) => {
  try {
    const r = await fetch(url);
    return { status: r.status, netError: r.headers.get('x-browserdeck-net-error'), body: await r.text() };
  } catch (e) {
    return { error: String(e) };
  }
};
app.action('probe', async (_ctx, p) => {
  const out = { loopback: await get(p.loopback), localhost: await get(p.localhost), engine: await get(process.env.KERNEL_BASE_URL + '/healthz') };
  const session = await kernel.browsers.create({ headless: true });
  await kernel.browsers.deleteByID(session.session_id);
  out.sdk = 'created and deleted a browser';
  return out;
});
`;

describe('apps', () => {
  it("with the default, an app's fetch to loopback is refused; it still reaches KERNEL_BASE_URL", async () => {
    const { final } = await deploy(strict.client, { 'index.mjs': APP }, { entrypoint: 'index.mjs', version: 'l1' });
    expect(final.status, final.status_reason).toBe('running');
    const port = new URL(web.url).port;
    const before = web.connections();
    const payload = { loopback: `${web.url}/page`, localhost: `http://localhost:${port}/page` };
    const inv = await strict.client.invocations.create({ app_name: 'loopback', action_name: 'probe', version: 'l1', payload: JSON.stringify(payload) });
    expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
    const out = JSON.parse(inv.output!) as Record<string, { status?: number; netError?: string; body?: string }>;
    for (const k of ['loopback', 'localhost']) {
      expect(out[k], k).toMatchObject({ status: 403, netError: 'net::ERR_NETWORK_ACCESS_DENIED' });
      expect(out[k].body, k).toMatch(/denied by the engine's egress policy \((127\.0\.0\.0\/8|::1\/128)\)/);
    }
    expect(out.engine).toMatchObject({ status: 200 });
    expect(out.sdk).toBe('created and deleted a browser');
    expect(web.connections()).toBe(before);
  });
});

describe('OTLP export', () => {
  it('with the default, still reaches a collector on loopback (the refusal is for tenants, not the engine)', async () => {
    const create = await strict.api('/telemetry/destinations', { method: 'POST', json: { name: 'loopback-collector', endpoint: collector.url } });
    expect(create.status, await create.clone().text()).toBeLessThan(300);
    const res = await strict.api('/browsers', {
      method: 'POST',
      json: { headless: true, telemetry: { export: { otlp: { destination: { name: 'loopback-collector' } } } } },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    const id = ((await res.json()) as { session_id: string }).session_id;
    try {
      const browser = await chromium.connectOverCDP(((await strict.client.browsers.retrieve(id)) as { cdp_ws_url: string }).cdp_ws_url);
      await browser.close();
      await pollUntil(
        'cdp_connect exported to the loopback collector',
        async () => collector.records.filter((r) => r.resource['session.id'] === id),
        (rs) => rs.some((r) => r.eventName === 'cdp_connect'),
      );
    } finally {
      await strict.client.browsers.deleteByID(id);
    }
  });
});

describe('proxy checks', () => {
  it('with the default, POST /proxies/{id}/check does not connect to a proxy on loopback; allowed, it does', async () => {
    // A "proxy" on loopback that answers every CONNECT 502 (a plain HTTP server closing the tunnel makes undici retry).
    let connections = 0;
    const proxy = net.createServer((c) => {
      connections++;
      c.on('error', () => {});
      c.once('data', () => c.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as net.AddressInfo).port;
    const checkVia = async (te: TestEngine, host: string): Promise<{ status: string; connected: boolean }> => {
      const before = connections;
      const created = await te.client.proxies.create({ type: 'custom', config: { host, port } });
      const checked = await te.client.proxies.check(created.id!, { url: 'http://example.test/' });
      return { status: checked.status ?? '', connected: connections > before };
    };
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        expect(await checkVia(strict, host), host).toEqual({ status: 'unavailable', connected: false });
        expect(await checkVia(open, host), host).toEqual({ status: 'unavailable', connected: true });
      }
    } finally {
      proxy.close();
    }
  });
});
