/**
 * `network.private_hosts` through the API and the real egress (sessions and pools): entries are
 * validated (each bad kind a 400 naming it), echoed in the Session object and fixed after create;
 * behind an upstream proxy (the recording test proxy on 127.0.0.1) a private destination is
 * connected to directly — the proxy never sees it — while others still go through the proxy;
 * `[]` sends everything through the proxy; the engine's egress deny list still refuses a private
 * host it covers. Raw HTTP: SDK 0.84 does not type `network`.
 */
import dns from 'node:dns/promises';
import http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { curlVia } from '../../helpers/browser-session.js';
import { startEchoServer, startTestProxy, type TestProxy } from '../../helpers/test-proxy.js';
import { DEFAULT_EGRESS_DENY } from '../../../src/engine/config.js';
import { DEFAULT_PRIVATE_HOSTS } from '../../../src/engine/runtime/proxy-forwarder/private-hosts.js';
import type { SessionProxyRouting } from '../../../src/engine/domain/proxies/session-proxy-routing.js';

/** A plain HTTP server on one loopback address that records the paths and connections it got. */
interface Origin {
  host: string;
  port: number;
  url: string;
  hits: string[];
  connections: number;
  close(): Promise<void>;
}

async function startOrigin(address: string): Promise<Origin> {
  const sockets = new Set<net.Socket>();
  const origin = { hits: [] as string[], connections: 0 } as Origin;
  const server = http.createServer((req, res) => {
    origin.hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>origin ${address}</title>`);
  });
  server.on('connection', (s: net.Socket) => {
    origin.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const port = (server.address() as AddressInfo).port;
  const host = address.includes(':') ? `[${address}]` : address;
  return Object.assign(origin, {
    host,
    port,
    url: `http://${host}:${port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

let t: TestEngine;
let proxy: TestProxy;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
/** Listed as a private host: reached directly. */
let privateOrigin: Origin;
/** Listed as a private host but inside the engine's --egress-deny. */
let deniedOrigin: Origin;
/** On the address `localhost` resolves to here: for a hostname entry. */
let named: Origin;
let proxyId: string;
/**
 * Two sessions behind the recording proxy, made once (a launch is ~2 CPU-s): `viaProxyEmpty` with
 * `private_hosts: []` and `viaProxyDefault` with none. The validation case reads their create
 * answers (echoed [], no `network`), the routing case sends traffic through them; neither changes
 * them. Their timeout outlasts the file.
 */
let viaProxyEmpty: { status: number; body: CreateAnswer };
let viaProxyDefault: { status: number; body: CreateAnswer };

beforeAll(async () => {
  proxy = await startTestProxy();
  echo = await startEchoServer();
  privateOrigin = await startOrigin('127.0.0.2');
  deniedOrigin = await startOrigin('127.0.0.3');
  named = await startOrigin((await dns.lookup('localhost')).address);
  t = await startTestEngine({ identity: { proxyTimeoutMs: 3000 }, egressDeny: [...DEFAULT_EGRESS_DENY, '127.0.0.3/32'] });
  const p = await t.client.proxies.create({ type: 'custom', name: 'recording', config: { host: '127.0.0.1', port: proxy.port } });
  proxyId = p.id!;
  viaProxyEmpty = await createSession({ proxy_id: proxyId, network: { private_hosts: [] }, timeout_seconds: 600 });
  viaProxyDefault = await createSession({ proxy_id: proxyId, timeout_seconds: 600 });
});
afterAll(async () => {
  for (const x of [viaProxyEmpty, viaProxyDefault]) if (x?.status === 200) await t.client.browsers.deleteByID(x.body.session_id);
  await t?.stop();
  await Promise.all([proxy?.close(), echo?.close(), privateOrigin?.close(), deniedOrigin?.close(), named?.close()]);
});

const routing = () => t.engine.services.proxyRouting as SessionProxyRouting;

async function json<T = Record<string, unknown>>(res: Response): Promise<{ status: number; body: T }> {
  return { status: res.status, body: (await res.json()) as T };
}

/** A Session object, or the Error object when the create is refused. */
interface CreateAnswer {
  session_id: string;
  network?: unknown;
  code?: string;
  message?: string;
  details?: Array<{ code: string; message: string }>;
}

async function createSession(body: Record<string, unknown>) {
  return json<CreateAnswer>(await t.api('/browsers', { method: 'POST', json: { headless: true, ...body } }));
}

describe('network.private_hosts: validation', () => {
  it('accepts good entries and echoes them on create, get and list; none when omitted or {}', async () => {
    const list = ['10.0.0.0/8', 'fd12:3456::/32', '[fd00::1]:8443', '127.0.0.2', 'wiki.corp:8080', '*.svc.corp.example.com', 'intranet'];
    const s = await createSession({ network: { private_hosts: list } });
    expect(s.status).toBe(200);
    expect(s.body.network).toEqual({ private_hosts: list });
    const got = await json(await t.api(`/browsers/${s.body.session_id}`));
    expect(got.body.network).toEqual({ private_hosts: list });
    const listed = await json<Array<{ session_id: string; network?: unknown }>>(await t.api('/browsers'));
    expect(listed.body.find((x) => x.session_id === s.body.session_id)?.network).toEqual({ private_hosts: list });

    // The two sessions behind the proxy: [] is echoed, an omitted network is not reported.
    const empty = viaProxyEmpty;
    expect(empty.body.network).toEqual({ private_hosts: [] });
    const none = viaProxyDefault;
    expect('network' in none.body).toBe(false);
    const blank = await createSession({ network: {} });
    expect('network' in blank.body).toBe(false);

    // Fixed at create: a PATCH carrying private_hosts is refused and changes nothing.
    const patched = await json<{ code: string; message: string; details: Array<{ message: string }> }>(
      await t.api(`/browsers/${s.body.session_id}`, { method: 'PATCH', json: { network: { private_hosts: [] }, tags: { a: 'b' } } }),
    );
    expect(patched.status).toBe(400);
    expect(patched.body.code).toBe('invalid_request');
    expect(patched.body.message).toMatch(/^network\.private_hosts: cannot be changed after the session is created/);
    expect(patched.body.details[0].message).toMatch(/^network\.private_hosts:/);
    const after = await json<{ network?: unknown; tags: unknown }>(await t.api(`/browsers/${s.body.session_id}`));
    expect(after.body).toMatchObject({ network: { private_hosts: list }, tags: {} });

    for (const x of [s, blank]) await t.client.browsers.deleteByID(x.body.session_id);
  });

  it('refuses each kind of bad entry with a 400 Error object naming it, before any browser starts', async () => {
    const cases: Array<[string, RegExp]> = [
      ['8.8.8.0/24', /not inside the private ranges/],
      ['127.0.0.0/8', /not inside the private ranges/],
      ['169.254.0.0/16', /not inside the private ranges/],
      ['0.0.0.0/0', /not inside the private ranges/],
      ['10.1.0.0/8', /not canonical/],
      ['10.0.0.0/8:80', /cannot carry a port/],
      ['[fd00::]/8', /without them/],
      ['fd00::1', /without brackets/],
      ['0.0.0.0', /not a unicast address/],
      ['*.co.uk', /public suffix/],
      ['*.internal', /single label/],
      ['wiki.corp:99999', /invalid port/],
      ['http://wiki.corp/', /not a hostname, IP address or CIDR range/],
    ];
    const before = (await t.client.browsers.list()).getPaginatedItems().length;
    for (const [entry, why] of cases) {
      const r = await createSession({ network: { private_hosts: ['wiki.corp', entry] } });
      expect(r.status, entry).toBe(400);
      const body = r.body;
      expect(body.code, entry).toBe('invalid_request');
      expect(body.message, entry).toContain(`network.private_hosts[1]: '${entry}'`);
      expect(body.message, entry).toMatch(why);
      expect(body.details, entry).toEqual([{ code: 'invalid_field', message: body.message }]);
    }
    // The schema's own limits are Error objects too.
    const notStrings = await createSession({ network: { private_hosts: [42] } });
    expect(notStrings.status).toBe(400);
    expect(notStrings.body).toMatchObject({ code: 'invalid_request', details: [{ code: 'invalid_field' }] });
    expect((await t.client.browsers.list()).getPaginatedItems().length).toBe(before);
  });

  it('ignores a network key no Kernel version has', async () => {
    // A key no Kernel version has is ignored like any unknown field (forward compatibility):
    // the session gets no network config.
    const unknown = await createSession({ network: { private_host: ['x.corp'] } });
    expect(unknown.status).toBe(200);
    expect(unknown.body.network).toBeUndefined();
    await t.api(`/browsers/${unknown.body.session_id}`, { method: 'DELETE' });
  });
});

describe('network.private_hosts: routing behind an upstream proxy', () => {
  it('connects to private hosts directly (plain and tunnelled), the rest through the proxy; the deny list still holds', async () => {
    const port = named.port;
    const s = await createSession({ proxy_id: proxyId, network: { private_hosts: ['127.0.0.2', '127.0.0.3', `localhost:${port}`] } });
    expect(s.status).toBe(200);
    const id = s.body.session_id;
    expect(routing().forwarderOf(id)?.route.privateHosts).toEqual(['127.0.0.2', '127.0.0.3', `localhost:${port}`]);

    // Not private: through the proxy (it is on loopback, so loopback destinations use it too).
    expect(await curlVia(t, id, `${echo.url}/proxied`)).toEqual({ status: 200 });
    expect(proxy.targets()).toContain(`${echo.url}/proxied`);

    // A private IP: direct — the origin answers, the proxy saw nothing of it.
    expect(await curlVia(t, id, `${privateOrigin.url}/direct`)).toEqual({ status: 200 });
    expect(privateOrigin.hits).toContain('/direct');
    // A private hostname with its port: direct too (resolved by the engine, as every direct connection).
    expect(await curlVia(t, id, `http://localhost:${port}/by-name`)).toEqual({ status: 200 });
    expect(named.hits).toContain('/by-name');
    // The same name on another port is not private: through the proxy.
    expect(await curlVia(t, id, `http://localhost:${echo.port}/other-port`)).toEqual({ status: 200 });
    expect(proxy.targets()).toContain(`http://localhost:${echo.port}/other-port`);
    // Tunnelled (https): the CONNECT goes straight to the private origin (which speaks no TLS).
    const connectionsBefore = privateOrigin.connections;
    await curlVia(t, id, `https://127.0.0.2:${privateOrigin.port}/tls`);
    expect(privateOrigin.connections).toBeGreaterThan(connectionsBefore);
    expect(proxy.targets().filter((x) => x.includes('127.0.0.2') || x.includes(`localhost:${port}`))).toEqual([]);

    // Private but denied by --egress-deny: refused after resolution, never connected to.
    expect(await curlVia(t, id, `${deniedOrigin.url}/denied`)).toEqual({ netError: 'net::ERR_NETWORK_ACCESS_DENIED' });
    expect(deniedOrigin.connections).toBe(0);
    expect(proxy.targets().some((x) => x.includes('127.0.0.3'))).toBe(false);

    // A live proxy switch keeps the session's private hosts (they are create-only).
    const other = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: proxy.port } });
    await t.client.browsers.update(id, { proxy_id: other.id! });
    expect(routing().forwarderOf(id)?.route.privateHosts).toEqual(['127.0.0.2', '127.0.0.3', `localhost:${port}`]);
    expect(await curlVia(t, id, `${privateOrigin.url}/after-switch`)).toEqual({ status: 200 });
    expect(privateOrigin.hits).toContain('/after-switch');
    expect(proxy.targets().some((x) => x.includes('/after-switch'))).toBe(false);
    await t.client.browsers.deleteByID(id);
  });

  it('[] sends everything through the proxy; omitted applies the default ranges', async () => {
    const empty = viaProxyEmpty;
    expect(routing().forwarderOf(empty.body.session_id)?.route.privateHosts).toEqual([]);
    expect(await curlVia(t, empty.body.session_id, `${privateOrigin.url}/via-proxy`)).toEqual({ status: 200 });
    expect(proxy.targets()).toContain(`${privateOrigin.url}/via-proxy`);
    expect(privateOrigin.hits).toContain('/via-proxy'); // the proxy reached it for us

    const defaults = viaProxyDefault;
    expect('network' in defaults.body).toBe(false);
    expect(routing().forwarderOf(defaults.body.session_id)?.route.privateHosts).toEqual(DEFAULT_PRIVATE_HOSTS);
    // 127.0.0.2 is in none of the default ranges: through the proxy.
    expect(await curlVia(t, defaults.body.session_id, `${privateOrigin.url}/default-list`)).toEqual({ status: 200 });
    expect(proxy.targets()).toContain(`${privateOrigin.url}/default-list`);
  });
});

describe('network.private_hosts: pools', () => {
  it('applies the pool network to its browsers, echoes it, and changes it only by PATCH', async () => {
    const created = await json<{ id: string; browser_pool_config: Record<string, unknown> }>(
      await t.api('/browser_pools', {
        method: 'POST',
        json: { size: 1, headless: true, fill_rate_per_minute: 100, proxy_id: proxyId, network: { private_hosts: ['127.0.0.2'] } },
      }),
    );
    expect(created.status).toBe(200);
    expect(created.body.browser_pool_config.network).toEqual({ private_hosts: ['127.0.0.2'] });
    const poolId = created.body.id;

    const acquired = await json<{ session_id: string; network?: unknown }>(
      await t.api(`/browser_pools/${poolId}/acquire`, { method: 'POST', json: { acquire_timeout_seconds: 60 } }),
    );
    expect(acquired.status).toBe(200);
    expect(acquired.body.network).toEqual({ private_hosts: ['127.0.0.2'] });
    expect((await json(await t.api(`/browsers/${acquired.body.session_id}`))).body.network).toEqual({ private_hosts: ['127.0.0.2'] });
    expect(await curlVia(t, acquired.body.session_id, `${privateOrigin.url}/pooled`)).toEqual({ status: 200 });
    expect(privateOrigin.hits).toContain('/pooled');
    expect(proxy.targets().some((x) => x.includes('/pooled'))).toBe(false);

    // Bad entries and unsupported keys are refused on pools too; nothing changes.
    const bad = await json<{ code: string; message: string }>(
      await t.api(`/browser_pools/${poolId}`, { method: 'PATCH', json: { network: { private_hosts: ['8.8.8.0/24'] } } }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("network.private_hosts[0]: '8.8.8.0/24'");
    // proxy_routes are per session (Kernel: not on pools).
    const routes = await t.api(`/browser_pools/${poolId}`, { method: 'PATCH', json: { network: { proxy_routes: [] } } });
    expect(routes.status).toBe(400);
    expect(((await routes.json()) as { message: string }).message).toMatch(/^network\.proxy_routes: is not supported on pools/);
    const badCreate = await t.api('/browser_pools', { method: 'POST', json: { size: 1, network: { private_hosts: ['*.com'] } } });
    expect(badCreate.status).toBe(400);

    // PATCH: an explicit list replaces, {} removes, omitted keeps.
    const replaced = await json<{ browser_pool_config: Record<string, unknown> }>(
      await t.api(`/browser_pools/${poolId}`, { method: 'PATCH', json: { network: { private_hosts: [] } } }),
    );
    expect(replaced.body.browser_pool_config.network).toEqual({ private_hosts: [] });
    const kept = await json<{ browser_pool_config: Record<string, unknown> }>(await t.api(`/browser_pools/${poolId}`, { method: 'PATCH', json: { size: 1 } }));
    expect(kept.body.browser_pool_config.network).toEqual({ private_hosts: [] });
    const removed = await json<{ browser_pool_config: Record<string, unknown> }>(
      await t.api(`/browser_pools/${poolId}`, { method: 'PATCH', json: { network: {} } }),
    );
    expect('network' in removed.body.browser_pool_config).toBe(false);

    await t.api(`/browser_pools/${poolId}`, { method: 'DELETE', json: { force: true } });
  });
});
