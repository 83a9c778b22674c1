/**
 * Sessions through proxies with real Chromium: page traffic reaches the (authenticated) test
 * proxy, bypass hosts go direct, a live PATCH switches the upstream, a dead upstream gives a
 * clear 502 instead of a hang, WebRTC reveals no host addresses, and the per-session forwarder
 * is closed with the session.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import os from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startEchoServer, startTestProxy, type TestProxy } from '../../helpers/test-proxy.js';
import type { SessionProxyRouting } from '../../../src/engine/domain/proxies/session-proxy-routing.js';

let t: TestEngine;
let authed: TestProxy;
let open: TestProxy;
let echo: Awaited<ReturnType<typeof startEchoServer>>;
const browsers: Browser[] = [];

beforeAll(async () => {
  authed = await startTestProxy({ username: 'sess', password: 'pw-9' });
  open = await startTestProxy();
  echo = await startEchoServer();
  t = await startTestEngine({ identity: { proxyTimeoutMs: 3000 } });
});
afterAll(async () => {
  for (const b of browsers) await b.close().catch(() => {});
  await t?.stop();
  await Promise.all([authed?.close(), open?.close(), echo?.close()]);
});

const routing = () => t.engine.services.proxyRouting as SessionProxyRouting;

async function connect(cdpUrl: string) {
  const b = await chromium.connectOverCDP(cdpUrl);
  browsers.push(b);
  const context = b.contexts()[0];
  return context.pages()[0] ?? (await context.newPage());
}

/** Gathers ICE candidates of a data-channel offer (no STUN server: only local candidates exist). */
const gatherCandidates = `new Promise((resolve) => {
  const pc = new RTCPeerConnection({ iceServers: [] });
  const found = [];
  pc.createDataChannel('x');
  pc.onicecandidate = (e) => { if (e.candidate) found.push(e.candidate.candidate); else { pc.close(); resolve(found); } };
  pc.createOffer().then((o) => pc.setLocalDescription(o));
  setTimeout(() => { pc.close(); resolve(found); }, 5000);
})`;

describe('sessions through proxies', () => {
  it('routes page loads through an authenticated upstream, honours bypass hosts, switches live and fails clearly', async () => {
    const proxy = await t.client.proxies.create({
      type: 'custom',
      name: 'authed',
      config: { host: '127.0.0.1', port: authed.port, username: 'sess', password: 'pw-9' },
      bypass_hosts: ['localhost'],
    });
    const s = await t.client.browsers.create({ headless: true, proxy_id: proxy.id! });
    expect(s.proxy_id).toBe(proxy.id);
    expect((await t.client.browsers.retrieve(s.session_id)).proxy_id).toBe(proxy.id);
    expect(routing().activeProxy(s.session_id)).toMatchObject({ proxy_id: proxy.id, type: 'custom', upstream: `127.0.0.1:${authed.port}`, forwarder: 'jail' });
    const page = await connect(s.cdp_ws_url);

    const res = await page.goto(`${echo.url}/via-proxy`);
    expect(res?.status()).toBe(200);
    expect(authed.seen).toContainEqual({ method: 'GET', target: `${echo.url}/via-proxy`, authorized: true });
    expect(authed.seen.every((r) => r.authorized)).toBe(true);

    // /curl uses the browser's network stack, so it goes through the proxy too.
    const curl = await t.client.browsers.curl(s.session_id, { url: `${echo.url}/via-curl` });
    expect(curl.status).toBe(200);
    expect(authed.targets()).toContain(`${echo.url}/via-curl`);
    const fetched = await t.client.browsers.fetch(s.session_id, `${echo.url}/via-fetch`);
    expect(fetched.status).toBe(200);
    expect(authed.targets()).toContain(`${echo.url}/via-fetch`);

    const bypassed = await page.goto(`http://localhost:${echo.port}/bypassed`);
    expect(bypassed?.status()).toBe(200);
    expect(echo.hits).toContain('/bypassed');
    expect(authed.targets().some((x) => x.includes('/bypassed'))).toBe(false);

    // Live switch to another proxy: no browser restart, next request goes through the new one.
    const other = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: open.port } });
    const patched = await t.client.browsers.update(s.session_id, { proxy_id: other.id! });
    expect(patched.proxy_id).toBe(other.id);
    await page.goto(`${echo.url}/after-switch`);
    expect(open.targets()).toContain(`${echo.url}/after-switch`);
    expect(authed.targets()).not.toContain(`${echo.url}/after-switch`);

    // The upstream dies mid-session: a clear 502 from the forwarder, not a hung page.
    await open.close();
    const failed = await page.goto(`${echo.url}/upstream-dead`);
    expect(failed?.status()).toBe(502);
    expect(await page.textContent('body')).toContain(`upstream proxy 127.0.0.1:${open.port} failed`);
    // A tunnelled (https) request fails as a tunnel error; a separate tab, since Chromium keeps
    // retrying its error page in the background.
    const tab = await page.context().newPage();
    const tunnel = await tab.goto(`https://127.0.0.1:${echo.port}/tls`).then(
      () => 'loaded',
      (e: Error) => e.message,
    );
    expect(tunnel).toMatch(/ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY|ERR_EMPTY_RESPONSE|ERR_CONNECTION/);
    await tab.close();

    // Removing the proxy live makes the forwarder connect directly.
    await t.client.browsers.update(s.session_id, { proxy_id: '' });
    expect((await t.client.browsers.retrieve(s.session_id)).proxy_id).toBeUndefined();
    expect((await page.goto(`${echo.url}/direct-now`))?.status()).toBe(200);

    const forwarder = routing().forwarderOf(s.session_id)!;
    expect(forwarder).toBeDefined();
    // A jailed browser's forwarder has no loopback port any local process could use (with the
    // upstream's credentials); it is reached only through the session's jail.
    expect(forwarder.port).toBe(0);
    await t.client.browsers.deleteByID(s.session_id);
    // The teardown (the forwarder with it) runs behind DELETE's answer.
    await vi.waitFor(() => expect(routing().forwarderOf(s.session_id)).toBeUndefined(), { timeout: 15_000, interval: 50 });
  });

  it('rejects unknown proxies and keeps WebRTC from revealing host addresses', async () => {
    await expect(t.client.browsers.create({ headless: true, proxy_id: 'nope' })).rejects.toMatchObject({ status: 404 });

    const proxy = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: authed.port, username: 'sess', password: 'pw-9' } });
    // The control browser runs unjailed (bwrap off while it starts): a jailed one has no host
    // address to reveal at all (its own network namespace), so it could not show the check fails.
    process.env.BROWSERDECK_NO_BWRAP = '1';
    const plain = await t.client.browsers.create({ headless: true }).finally(() => delete process.env.BROWSERDECK_NO_BWRAP);
    const jailed = await t.client.browsers.create({ headless: true });
    const proxied = await t.client.browsers.create({ headless: true, proxy_id: proxy.id! });
    const plainPage = await connect(plain.cdp_ws_url);
    const proxiedPage = await connect(proxied.cdp_ws_url);
    await plainPage.goto(`${echo.url}/webrtc`);
    await proxiedPage.goto(`${echo.url}/webrtc`);

    // Control: without a proxy the same page does gather host candidates, so the check can fail.
    const control = (await plainPage.evaluate(gatherCandidates)) as string[];
    expect(control.some((c) => / typ host/.test(c))).toBe(true);

    const candidates = (await proxiedPage.evaluate(gatherCandidates)) as string[];
    const realIps = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal)
      .map((i) => i!.address);
    expect(candidates.filter((c) => / typ host/.test(c))).toEqual([]);
    for (const ip of realIps) expect(candidates.join('\n')).not.toContain(ip);
    // Without a proxy, a jailed browser reveals no host address either.
    const jailedPage = await connect(jailed.cdp_ws_url);
    await jailedPage.goto(`${echo.url}/webrtc`);
    const fromJail = (await jailedPage.evaluate(gatherCandidates)) as string[];
    for (const ip of realIps) expect(fromJail.join('\n')).not.toContain(ip);
    await t.client.browsers.deleteByID(jailed.session_id);

    await t.client.browsers.deleteByID(plain.session_id);
    await t.client.browsers.deleteByID(proxied.session_id);
  });
});
