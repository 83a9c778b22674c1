/**
 * DevTools on a session's tab (issue 17 item 1), in real Chromium on both ends: the operator's
 * browser (playwright-core) opens `GET /browsers/{id}/devtools?target=…`, gets Chromium's own
 * frontend served by the engine and connected through its CDP proxy, and finds the page's DOM in
 * Elements and its `console.log` in Console. Read-only mode, over the frontend's own WebSocket,
 * refuses what changes the page (navigate, input, side-effecting evaluate) and answers reads.
 * Jail: another project's key gets 404, a frontend token opens neither the session's full CDP
 * nor another session's, and the frontend's files cannot call the engine's API.
 */
import type { CdpMethod, CdpParams, CdpResult } from '../../../src/engine/runtime/chromium/cdp-types.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { operatorBrowser } from '../../helpers/operator-browser.js';
import type Kernel from '@onkernel/sdk';
import { WebSocket } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

const PAGE = `<!doctype html><html><head><title>inspect me</title></head><body>
<section id="inspect-marker-section"><p class="needle">needle paragraph</p></section>
<script>let n = 0; setInterval(() => console.log('console-marker-' + (++n)), 250);</script></body></html>`;

export const SHOTS = path.resolve('resources/screenshots');

let te: TestEngine;
let site: LocalServer;
let operator: Browser;
let tenantKey: string;

beforeAll(async () => {
  te = await startTestEngine();
  site = await startLocalServer({ '/': PAGE, '/other': '<!doctype html><title>other</title>' });
  operator = await operatorBrowser();
  const project = await te.client.projects.create({ name: 'inspect-tenant' });
  tenantKey = (await te.client.apiKeys.create({ name: 'inspect-key', project_id: project.id })).key!;
}, 120_000);

afterAll(async () => {
  await operator?.close();
  await site?.close();
  await te?.stop();
});

interface Target {
  id: string;
  type: string;
  url: string;
}

/** A session showing the test page, and that page's target id. */
async function sessionOnPage(client: Kernel = te.client): Promise<{ id: string; targetId: string }> {
  const s = await client.browsers.create({ headless: true, timeout_seconds: 600 });
  const b = await chromium.connectOverCDP(s.cdp_ws_url);
  try {
    const page = b.contexts()[0].pages()[0] ?? (await b.contexts()[0].newPage());
    await page.goto(`${site.url}/`);
  } finally {
    await b.close();
  }
  const list = (await (await te.api(`/browsers/${s.session_id}/cdp/json/list`)).json()) as Target[];
  const target = list.find((t) => t.type === 'page' && t.url.startsWith(site.url));
  if (!target) throw new Error(`no page target in ${JSON.stringify(list)}`);
  return { id: s.session_id, targetId: target.id };
}

let shared: Promise<{ id: string; targetId: string }> | undefined;
/**
 * One session for the tests that leave its page as it was (they only read it, or use it as
 * "another session"): launched once, by the first of them that runs. The read-only test, which
 * navigates and edits its page, and the test that ends its session have their own.
 */
const sharedSession = () => (shared ??= sessionOnPage());

async function link(id: string, targetId: string, mode = 'full'): Promise<{ url: string; mode: string; target_id: string }> {
  const res = await te.api(`/browsers/${id}/devtools?target=${targetId}&mode=${mode}&format=json`);
  expect(res.status).toBe(200);
  return (await res.json()) as { url: string; mode: string; target_id: string };
}

/** The frontend's WebSocket address from its link (`inspector.html?ws=<host/path>`). */
function frontendWs(url: string): string {
  return `ws://${new URL(url).searchParams.get('ws')}`;
}

/** One CDP round trip on an open socket. */
function call<M extends CdpMethod>(
  ws: WebSocket,
  id: number,
  method: M,
  params?: CdpParams<M>,
): Promise<{ result?: CdpResult<M>; error?: { message: string } }> {
  return new Promise((resolve) => {
    const onMessage = (raw: Buffer) => {
      const msg = JSON.parse(raw.toString());
      if (msg.id !== id) return;
      ws.off('message', onMessage);
      resolve(msg);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, params: params ?? {} }));
  });
}

async function openWs(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return ws;
}

/** The status an upgrade is refused with (0 when it is accepted). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.once('open', () => {
      ws.close();
      resolve(0);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? -1);
      res.resume();
    });
    ws.once('error', () => resolve(-1));
  });
}

/**
 * Waits until the frontend's Elements panel shows the page's DOM. Once, in a full CI run, it did
 * not within 120 s (and did in the next test): on a repeat, the failure says what it showed.
 */
async function showsDom(page: Page): Promise<void> {
  await page
    .getByText('inspect-marker-section')
    .first()
    .waitFor()
    .catch(async (err: unknown) => {
      const shown = await page.evaluate(() => document.body.innerText.slice(0, 2000)).catch((e: unknown) => `(unreadable: ${String(e)})`);
      throw new Error(`${String(err)}\nthe frontend showed:\n${shown}`);
    });
}

describe('DevTools frontend on a tab', () => {
  it('redirects to Chromium’s own frontend, which shows the page’s DOM in Elements and its console.log in Console', async () => {
    const { id, targetId } = await sharedSession();
    // The plain route answers with a redirect to the frontend (what a new browser tab follows).
    const redirect = await te.api(`/browsers/${id}/devtools?target=${targetId}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location).toMatch(/\/devtools-frontend\/[\w.-]+\/inspector\.html\?ws=/);

    const page = await operator.newPage({ viewport: { width: 1600, height: 900 } });
    page.setDefaultTimeout(120_000);
    await page.goto(location);
    // Elements (the default panel) shows the page's own DOM, got through the proxy.
    await showsDom(page);
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'devtools-elements.png') });
    // Console lists what the page logs.
    // (The panel row is narrow beside the page's screencast: Escape opens the Console drawer.)
    await page.keyboard.press('Escape');
    await page
      .getByText(/console-marker-\d+/)
      .first()
      .waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'devtools-console.png') });

    // The frontend's files come from the session's browser, so they are confined to their own
    // path: a fetch of the engine's API from the frontend page is refused by its CSP.
    const outcome = await page.evaluate(() =>
      fetch('/browsers', { headers: { 'x-browserdeck-console': '1' } }).then(
        (r) => `answered ${r.status}`,
        () => 'blocked',
      ),
    );
    expect(outcome).toBe('blocked');
    await page.close();
  }, 300_000);

  it('survives a reconnect: the same link opens the frontend again on the same tab', async () => {
    const { id, targetId } = await sharedSession();
    const { url } = await link(id, targetId);
    for (let i = 0; i < 2; i++) {
      const page = await operator.newPage();
      page.setDefaultTimeout(120_000);
      await page.goto(url);
      await showsDom(page);
      await page.close();
    }
  }, 300_000);

  it('read-only mode refuses navigate, input and side effects, and answers reads', async () => {
    const { id, targetId } = await sessionOnPage();
    const { url, mode } = await link(id, targetId, 'read');
    expect(mode).toBe('read');
    const ws = await openWs(frontendWs(url));
    try {
      const doc = await call(ws, 1, 'DOM.getDocument', { depth: -1 });
      expect(JSON.stringify(doc.result)).toContain('inspect-marker-section');
      const title = await call(ws, 2, 'Runtime.evaluate', { expression: 'document.title', returnByValue: true });
      expect(title.result?.result.value).toBe('inspect me');

      const nav = await call(ws, 3, 'Page.navigate', { url: `${site.url}/other` });
      expect(nav.error?.message).toMatch(/read-only/);
      const click = await call(ws, 4, 'Input.dispatchMouseEvent', { type: 'mousePressed', x: 5, y: 5, button: 'left', clickCount: 1 });
      expect(click.error?.message).toMatch(/read-only/);
      const edit = await call(ws, 5, 'DOM.setOuterHTML', { nodeId: doc.result!.root.nodeId, outerHTML: '<html></html>' });
      expect(edit.error?.message).toMatch(/read-only/);
      const emulate = await call(ws, 6, 'Emulation.setDeviceMetricsOverride', { width: 10, height: 10, deviceScaleFactor: 1, mobile: false });
      expect(emulate.error?.message).toMatch(/read-only/);
      // An evaluation with a side effect is stopped by V8's side-effect check (forced on).
      const write = await call(ws, 7, 'Runtime.evaluate', { expression: "document.title = 'changed'", returnByValue: true });
      expect(write.result?.exceptionDetails).toBeTruthy();
      const again = await call(ws, 8, 'Runtime.evaluate', { expression: 'document.title + location.pathname', returnByValue: true });
      expect(again.result?.result.value).toBe('inspect me/');
      // JSON that is no command (null) is refused in the browser's place, and the engine keeps serving the socket.
      const refusal = new Promise<{ error?: { code: number } }>((resolve) => {
        const onMessage = (raw: Buffer) => {
          const msg = JSON.parse(raw.toString());
          if (msg.id !== undefined || !msg.error) return;
          ws.off('message', onMessage);
          resolve(msg);
        };
        ws.on('message', onMessage);
      });
      ws.send('null');
      expect((await refusal).error?.code).toBe(-32000);
      const after = await call(ws, 9, 'Runtime.evaluate', { expression: 'document.title', returnByValue: true });
      expect(after.result?.result.value).toBe('inspect me');
    } finally {
      ws.close();
    }

    // The same commands go through in full mode.
    const full = await openWs(frontendWs((await link(id, targetId)).url));
    try {
      const write = await call(full, 1, 'Runtime.evaluate', { expression: "document.title = 'changed'", returnByValue: true });
      expect(write.result?.exceptionDetails).toBeUndefined();
      const nav = await call(full, 2, 'Page.navigate', { url: `${site.url}/other` });
      expect(nav.error).toBeUndefined();
    } finally {
      full.close();
    }
  }, 300_000);
});

describe('DevTools jail', () => {
  it('another project’s key gets 404 for the route; an unknown tab is 404', async () => {
    const { id, targetId } = await sharedSession();
    const res = await fetch(`${te.url}/browsers/${id}/devtools?target=${targetId}&format=json`, {
      headers: { authorization: `Bearer ${tenantKey}` },
    });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBeTruthy();
    const unknown = await te.api(`/browsers/${id}/devtools?target=ABCDEF0123&format=json`);
    expect(unknown.status).toBe(404);
    const noTarget = await te.api(`/browsers/${id}/devtools`);
    expect(noTarget.status).toBe(400);
  }, 300_000);

  it('a frontend token opens neither the session’s full CDP nor another session’s, and is tied to its session', async () => {
    const a = await sessionOnPage();
    const b = await sharedSession();
    const { url } = await link(a.id, a.targetId, 'read');
    const token = new URL(url).pathname.split('/')[2];
    const wsBase = te.url.replace(/^http/, 'ws');
    expect(await upgradeStatus(`${wsBase}/browsers/${a.id}/cdp?jwt=${token}`)).toBe(401);
    expect(await upgradeStatus(`${wsBase}/browsers/${a.id}/cdp/devtools/page/${a.targetId}?jwt=${token}`)).toBe(401);
    expect(await upgradeStatus(`${wsBase}/browsers/${b.id}/cdp?jwt=${token}`)).toBe(401);
    expect((await fetch(`${te.url}/browsers/${a.id}/cdp/json/list?jwt=${token}`)).status).toBe(401);
    // The frontend's socket reaches session A's tab only; a session JWT is no frontend token.
    const sessionJwt = new URL((await te.client.browsers.retrieve(b.id)).cdp_ws_url).searchParams.get('jwt')!;
    expect(await upgradeStatus(`${wsBase}/devtools-frontend/${sessionJwt}/ws`)).toBe(401);
    expect((await fetch(`${te.url}/devtools-frontend/${sessionJwt}/inspector.html`)).status).toBe(401);
    expect((await fetch(`${te.url}/devtools-frontend/${token}/..%2F..%2Fjson%2Flist`)).status).toBe(404);
    // Once the session ends, its frontend token reaches nothing.
    await te.client.browsers.deleteByID(a.id);
    expect((await fetch(`${te.url}/devtools-frontend/${token}/inspector.html`)).status).toBe(404);
    expect(await upgradeStatus(`${wsBase}/devtools-frontend/${token}/ws`)).toBe(404);
  }, 300_000);
});
