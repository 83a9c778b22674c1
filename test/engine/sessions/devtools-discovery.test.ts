/**
 * DevTools HTTP discovery under a session's CDP address (`/browsers/{id}/cdp/json/…`), with a
 * project-scoped key and a jailed-or-not real Chromium: chrome-remote-interface without
 * `local:true` (its `target` URL form, which fetches `/json/protocol` from the host root, and its
 * host/port form with `alterPath`) lists, opens, activates and closes targets and drives a listed
 * page through the engine; raw HTTP checks each route's credentials, scoping and 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import CDP from 'chrome-remote-interface';
import Kernel from '@onkernel/sdk';
import { WebSocket } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestWebServer, waitFor, type TestWebServer } from '../../helpers/chromium-web.js';

let te: TestEngine;
let web: TestWebServer;
let tenant: Kernel;
let tenantKey: string;

beforeAll(async () => {
  te = await startTestEngine();
  web = await startTestWebServer();
  const project = await te.client.projects.create({ name: 'devtools-tenant' });
  tenantKey = (await te.client.apiKeys.create({ name: 'devtools-key', project_id: project.id })).key!;
  tenant = te.clientWith({ apiKey: tenantKey });
});

afterAll(async () => {
  await web?.close();
  await te?.stop();
});

/** chrome-remote-interface options for a session: its fixed `/json/…` paths moved under the CDP address, with the token. */
function criOptions(cdpWsUrl: string) {
  const u = new URL(cdpWsUrl);
  const prefix = u.pathname;
  const jwt = u.searchParams.get('jwt')!;
  // The library also passes the path of the WebSocket URL it is about to open through
  // alterPath; those already point under the prefix and carry their token.
  const alterPath = (p: string) => (p.startsWith(prefix) ? p : `${prefix}${p}${p.includes('?') ? '&' : '?'}jwt=${encodeURIComponent(jwt)}`);
  return { host: u.hostname, port: Number(u.port), alterPath };
}

async function titleOf(client: Awaited<ReturnType<typeof CDP>>): Promise<string> {
  const r = await client.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
  return r.result.value as string;
}

async function navigate(client: Awaited<ReturnType<typeof CDP>>, url: string): Promise<void> {
  await client.send('Page.enable');
  const loaded = client.Page.loadEventFired();
  await client.send('Page.navigate', { url });
  await loaded;
}

describe('DevTools discovery with chrome-remote-interface (no local:true)', () => {
  it('Version, Protocol, New, List, Activate, Close, and a client on a listed page target', async () => {
    const s = await tenant.browsers.create({ headless: true });
    const opts = criOptions(s.cdp_ws_url);
    const engineWs = te.url.replace(/^http/, 'ws');
    const targetPrefix = `${engineWs}/browsers/${s.session_id}/cdp/devtools/page/`;

    const version = await CDP.Version(opts);
    expect(version.Browser).toMatch(/Chrom/);
    expect(version.webSocketDebuggerUrl).toMatch(new RegExp(`^${engineWs}/browsers/${s.session_id}/cdp\\?jwt=`));

    const protocol = await CDP.Protocol(opts);
    expect(protocol.domains.map((d) => d.domain)).toEqual(expect.arrayContaining(['Page', 'Runtime', 'Target']));

    const created = await CDP.New({ ...opts, url: `${web.url}/title/Opened%20by%20New` });
    expect(created.type).toBe('page');
    expect(created.webSocketDebuggerUrl!.startsWith(`${targetPrefix}${created.id}?jwt=`)).toBe(true);

    const listed = await CDP.List(opts);
    expect(listed.map((t) => t.id)).toContain(created.id);
    for (const t of listed.filter((x) => x.webSocketDebuggerUrl)) {
      // Nothing names Chromium's own address: every target is reached through the engine.
      expect(t.webSocketDebuggerUrl!.startsWith(`${targetPrefix}${t.id}?jwt=`)).toBe(true);
      expect(new URL(t.devtoolsFrontendUrl!).searchParams.get('ws')).toBe(t.webSocketDebuggerUrl!.replace(/^ws:\/\//, ''));
    }

    // A client attached to the listed target (chosen by id) drives that page.
    const page = await CDP({ ...opts, target: created.id });
    // /json/new answers once the tab exists, not once its URL has loaded: on a busy machine the title is still ''.
    await waitFor(async () => (await titleOf(page)) === 'Opened by New', 20_000, 'the tab /json/new opened shows its page');
    await navigate(page, `${web.url}/title/Driven%20through%20the%20engine`);
    expect(await titleOf(page)).toBe('Driven through the engine');
    await page.close();

    await CDP.Activate({ ...opts, id: created.id });
    await CDP.Close({ ...opts, id: created.id });
    // Chromium closes the target after answering.
    await waitFor(async () => !(await CDP.List(opts)).some((t) => t.id === created.id), 20_000, 'closed target gone from the list');

    await expect(CDP.Close({ ...opts, id: created.id })).rejects.toThrow(/not found/);
    await tenant.browsers.deleteByID(s.session_id);
  });

  it('connects with default options: the session URL as target (protocol from the host root), or the first listed page', async () => {
    const s = await tenant.browsers.create({ headless: true });

    const browser = await CDP({ target: s.cdp_ws_url });
    const { targetInfos } = await browser.send('Target.getTargets');
    expect(targetInfos.some((t: { type: string }) => t.type === 'page')).toBe(true);
    await browser.close();

    const page = await CDP(criOptions(s.cdp_ws_url));
    await navigate(page, `${web.url}/title/Default%20target`);
    expect(await titleOf(page)).toBe('Default target');
    await page.close();
    await tenant.browsers.deleteByID(s.session_id);
  });
});

describe('DevTools discovery over raw HTTP', () => {
  it('authenticates each route, scopes it to the project, and answers bad ids with a 404 Error object', async () => {
    const s = await tenant.browsers.create({ headless: true });
    const other = await te.client.browsers.create({ headless: true }); // the default project
    const cdp = `${s.base_url}/cdp`;
    const jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
    const bearer = { authorization: `Bearer ${tenantKey}` };
    const routes: Array<[string, string]> = [
      ['GET', '/json/version'],
      ['GET', '/json'],
      ['GET', '/json/list'],
      ['GET', '/json/protocol'],
      ['PUT', '/json/new?about:blank'],
      ['GET', '/json/new?about:blank'],
      ['GET', '/json/activate/ABC'],
      ['GET', '/json/close/ABC'],
    ];
    for (const [method, p] of routes) {
      const anon = await fetch(cdp + p, { method });
      expect(anon.status, `${method} ${p}`).toBe(401);
      expect(await anon.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      // Another project's session does not exist for this key.
      const foreign = await fetch(`${other.base_url}/cdp${p}`, { method, headers: bearer });
      expect(foreign.status, `${method} ${p} (other project)`).toBe(404);
      expect(await foreign.json()).toMatchObject({ code: 'not_found', message: expect.any(String) });
    }

    // Bearer key and session token both work; the token may come before or after the page URL.
    const list = await fetch(`${cdp}/json/list`, { headers: bearer });
    expect(list.status).toBe(200);
    const byGet = await (await fetch(`${cdp}/json/new?${web.url}/title/one`, { headers: bearer })).json();
    expect(byGet).toMatchObject({ type: 'page', url: `${web.url}/title/one` });
    const byPutJwtAfter = await (await fetch(`${cdp}/json/new?${web.url}/title/two&jwt=${encodeURIComponent(jwt)}`, { method: 'PUT' })).json();
    expect(byPutJwtAfter).toMatchObject({ type: 'page', url: `${web.url}/title/two` });
    const byPutJwtBefore = await (await fetch(`${cdp}/json/new?jwt=${encodeURIComponent(jwt)}&${web.url}/title/three`, { method: 'PUT' })).json();
    expect(byPutJwtBefore).toMatchObject({ type: 'page', url: `${web.url}/title/three` });

    const activated = await fetch(`${cdp}/json/activate/${byGet.id}?jwt=${encodeURIComponent(jwt)}`);
    expect(activated.status).toBe(200);
    const closed = await fetch(`${cdp}/json/close/${byGet.id}`, { method: 'PUT', headers: bearer });
    expect(closed.status).toBe(200);

    for (const bad of ['NO-SUCH-TARGET', '..%2F..%2Fjson%2Fversion', '%E2%98%83']) {
      for (const action of ['activate', 'close']) {
        const r = await fetch(`${cdp}/json/${action}/${bad}`, { headers: bearer });
        expect(r.status, `${action} ${bad}`).toBe(404);
        expect(await r.json()).toMatchObject({ code: 'not_found', message: expect.any(String) });
      }
    }
    // The per-target WebSocket route refuses a target the browser does not have, and no credentials.
    expect(await upgradeStatus(`${cdp.replace(/^http/, 'ws')}/devtools/page/NO-SUCH-TARGET?jwt=${encodeURIComponent(jwt)}`)).toBe(404);
    expect(await upgradeStatus(`${cdp.replace(/^http/, 'ws')}/devtools/page/${byPutJwtAfter.id}`)).toBe(401);
    expect(await upgradeStatus(`${other.base_url!.replace(/^http/, 'ws')}/cdp/devtools/page/${byPutJwtAfter.id}`, bearer)).toBe(404);

    // The protocol document at the host root needs no credentials (clients cannot send any there).
    const rootProtocol = await fetch(`${te.url}/json/protocol`);
    expect(rootProtocol.status).toBe(200);
    expect((await rootProtocol.json()).domains.length).toBeGreaterThan(10);

    await tenant.browsers.deleteByID(s.session_id);
    await te.client.browsers.deleteByID(other.session_id);
  });
});

/** The HTTP status a WebSocket handshake is refused with (0 if it opens). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(0);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? -1);
      res.resume();
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

describe('the protocol document at the host root', () => {
  it('is answered without credentials and without any session running (no browser is asked)', async () => {
    const empty = await startTestEngine();
    try {
      const res = await fetch(`${empty.url}/json/protocol`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { domains: Array<{ domain: string }> };
      expect(doc.domains.map((d) => d.domain)).toEqual(expect.arrayContaining(['Page', 'Runtime', 'Target']));
    } finally {
      await empty.stop();
    }
  });
});
