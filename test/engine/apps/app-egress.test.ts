/**
 * Apps get the operator's egress policy, as browsers do (issue #11): the app jail has its own
 * network namespace, and its only ways out are the engine's egress proxy and the engine itself.
 * An engine denying 127.0.0.1/32: the app's fetch to a server there gets the proxy's refusal
 * (plain http and a TLS tunnel), a server on 127.0.0.2 answers through the proxy, raw TCP to
 * host addresses finds no route, and the app still drives a browser it created (the SDK at
 * KERNEL_BASE_URL and Playwright at the session's cdp_ws_url, both the engine's 127.0.0.1
 * address). The engine's side of that (two Unix sockets per app process) is gone once the
 * invocation has ended, and at engine stop. Before, apps shared the host's network: the denied
 * server answered 200 and raw TCP connected.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { socketInodes } from '../../helpers/proc.js';
import { deploy } from './app-helpers.js';

const APP = `
import net from 'node:net';
import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright-core';
const kernel = new Kernel();
const app = kernel.app('egress');
const get = async (url) => {
  try {
    const r = await fetch(url);
    return { status: r.status, netError: r.headers.get('x-browserdeck-net-error'), proxyError: r.headers.get('x-kernel-proxy-error'), body: await r.text() };
  } catch (e) {
    const why = [];
    for (let c = e; c; c = c.cause) why.push(c.message);
    return { error: why.join(' <- ') };
  }
};
const tcp = (host, port) => new Promise((resolve) => {
  const s = net.connect({ host, port });
  s.once('connect', () => { s.destroy(); resolve('connected'); });
  s.once('error', (e) => resolve('ERR ' + e.code));
});
app.action('probe', async (_ctx, p) => {
  const out = { denied: await get(p.denied), deniedTls: await get(p.deniedTls), allowed: await get(p.allowed), tcp: {} };
  for (const [host, port] of p.tcp) out.tcp[host + ':' + port] = await tcp(host, port);
  const session = await kernel.browsers.create({ headless: true });
  const browser = await chromium.connectOverCDP(session.cdp_ws_url);
  try {
    const context = browser.contexts()[0];
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(p.allowed);
    out.title = await page.title();
  } finally {
    await browser.close();
  }
  await kernel.browsers.deleteByID(session.session_id);
  return out;
});
app.action('hold', async (_ctx, p) => {
  while ((await (await fetch(p.gate)).text()) !== 'open') await new Promise((r) => setTimeout(r, 100));
  return 'released';
});
`;

/** Unix socket paths the engine (this test process) holds under an app network's temp dir. */
function appNetworkSockets(): string[] {
  const mine = new Set(socketInodes(process.pid));
  const out = new Set<string>();
  for (const line of fs.readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols[7] && /\/bd-app-[^/]+\/(egress|engine)\.sock$/.test(cols[7]) && mine.has(cols[6])) out.add(cols[7]);
  }
  return [...out];
}

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

describe('the egress policy of apps', () => {
  let te: TestEngine;
  let denied: LocalServer;
  let gate = 'closed';
  const allowed = http.createServer((req, res) => {
    if (req.url === '/gate') return void res.end(gate);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>allowed page</title>');
  });
  let allowedUrl: string;
  // A TCP listener on a non-loopback address of the host, where it has one.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  const externalServer = net.createServer((s) => s.end());
  let externalPort = 0;

  beforeAll(async () => {
    denied = await startLocalServer({ '/secret': 'the denied server answered' });
    allowedUrl = `http://127.0.0.2:${await listen(allowed, '127.0.0.2')}`;
    if (external) externalPort = await listen(externalServer, external);
    te = await startTestEngine({ egressDeny: ['127.0.0.1/32'] });
    const { final } = await deploy(te.client, { 'index.mjs': APP }, { entrypoint: 'index.mjs', version: 'e1' });
    expect(final.status, final.status_reason).toBe('running');
  });
  afterAll(async () => {
    await te?.stop();
    await denied?.close();
    allowed.closeAllConnections();
    await new Promise((r) => allowed.close(r));
    await new Promise((r) => externalServer.close(r));
  });

  it('refuses denied destinations, reaches allowed ones only through the proxy, and still drives a browser', async () => {
    const port = new URL(denied.url).port;
    const tcp: Array<[string, number]> = [
      ['127.0.0.2', Number(new URL(allowedUrl).port)],
      ['127.0.0.1', Number(port)],
    ];
    if (external) tcp.push([external, externalPort]);
    const payload = { denied: `${denied.url}/secret`, deniedTls: `https://127.0.0.1:${port}/secret`, allowed: allowedUrl, tcp };
    const inv = await te.client.invocations.create({ app_name: 'egress', action_name: 'probe', version: 'e1', payload: JSON.stringify(payload) });
    expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
    const out = JSON.parse(inv.output!) as {
      denied: { status?: number; netError?: string; proxyError?: string; body?: string; error?: string };
      deniedTls: { status?: number; error?: string };
      allowed: { status?: number; body?: string; error?: string };
      tcp: Record<string, string>;
      title: string;
    };
    // Plain http: the egress proxy's own answer, named as for a browser.
    expect(out.denied).toMatchObject({ status: 403, netError: 'net::ERR_NETWORK_ACCESS_DENIED', proxyError: 'network_policy_denied' });
    expect(out.denied.body).toContain("denied by the engine's egress policy (127.0.0.1/32)");
    // A TLS tunnel to the same address is refused at CONNECT.
    expect(out.deniedTls.error).toMatch(/Proxy response \(403\)/);
    expect(out.allowed).toMatchObject({ status: 200, body: '<title>allowed page</title>' });
    // No route but the proxy: raw TCP reaches nothing of the host, allowed address or not.
    for (const [host, p] of tcp) expect(out.tcp[`${host}:${p}`], `${host}:${p}`).toMatch(/^ERR (ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)$/);
    // The SDK and Playwright reached the engine at its public 127.0.0.1 address (itself denied to the proxy).
    expect(out.title).toBe('allowed page');
  });

  it("closes the app process's sockets when it ends, and at engine stop", async () => {
    const hold = () =>
      te.client.invocations.create({
        app_name: 'egress',
        action_name: 'hold',
        version: 'e1',
        async: true,
        payload: JSON.stringify({ gate: `${allowedUrl}/gate` }),
      });
    gate = 'closed';
    const first = await hold();
    const open = await pollUntil(
      'the held invocation to have its sockets',
      async () => appNetworkSockets(),
      (s) => s.length === 2,
    );
    expect(open.map((s) => path.basename(s)).sort()).toEqual(['egress.sock', 'engine.sock']);
    gate = 'open';
    const done = await pollUntil(
      'the held invocation to finish',
      () => te.client.invocations.retrieve(first.id),
      (i) => i.status !== 'running' && i.status !== 'queued',
    );
    expect(done.status, done.status_reason ?? '').toBe('succeeded');
    expect(appNetworkSockets()).toEqual([]);
    expect(fs.existsSync(path.dirname(open[0]))).toBe(false);

    gate = 'closed';
    await hold();
    const again = await pollUntil(
      'the second held invocation to have its sockets',
      async () => appNetworkSockets(),
      (s) => s.length === 2,
    );
    await te.stop();
    expect(appNetworkSockets()).toEqual([]);
    expect(fs.existsSync(path.dirname(again[0]))).toBe(false);
  });
});

// An engine whose public URL is an address the jail cannot listen on (here the host's own
// non-loopback address; in production a name or port 443 in front of the engine): the app's
// connections to it are redirected to the jail's door, so the SDK and Playwright still reach it.
const hostAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
describe.skipIf(!hostAddress)('apps of an engine with a non-loopback public URL', () => {
  let te: TestEngine;
  let web: LocalServer;

  beforeAll(async () => {
    web = await startLocalServer({ '/': '<title>reached from the app</title>' });
    const probe = net.createServer();
    const port = await listen(probe, '0.0.0.0');
    await new Promise((r) => probe.close(r));
    te = await startTestEngine({ host: '0.0.0.0', port, publicUrl: `http://${hostAddress}:${port}` });
    const { final } = await deploy(te.client, { 'index.mjs': APP }, { entrypoint: 'index.mjs', version: 'r1' });
    expect(final.status, final.status_reason).toBe('running');
  });
  afterAll(async () => {
    await te?.stop();
    await web?.close();
  });

  it('reach the engine at its public URL and drive the browser they created', async () => {
    const payload = { denied: `${web.url}/`, deniedTls: `${web.url}/`, allowed: `${web.url}/`, tcp: [] };
    const inv = await te.client.invocations.create({ app_name: 'egress', action_name: 'probe', version: 'r1', payload: JSON.stringify(payload) });
    expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
    expect((JSON.parse(inv.output!) as { title: string }).title).toBe('reached from the app');
  });
});
