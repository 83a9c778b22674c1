import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer from 'puppeteer-core';
import fs from 'node:fs';
import { WebSocket } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { cmdlineOf, parentOf } from '../../helpers/proc.js';
import { startTestPages, type TestPages } from './test-pages.js';

let t: TestEngine;
let pages: TestPages;
beforeAll(async () => {
  t = await startTestEngine();
  pages = await startTestPages();
});
afterAll(async () => {
  await t?.stop();
  await pages?.close();
});

/** Sends one BiDi command on a raw socket and waits for its answer (`R`: the result as the caller reads it). */
function bidiCall<R = unknown>(ws: WebSocket, id: number, method: string, params: object): Promise<{ type: string; id: number; result: R; error?: string }> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const m = JSON.parse(data.toString());
      if (m.id === id) {
        ws.off('message', onMessage);
        resolve(m);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });
}

describe('WebDriver BiDi (webdriver_ws_url)', () => {
  it('lets Puppeteer drive the session over BiDi: navigate, evaluate, title', async () => {
    const s = await t.client.browsers.create({ headless: true });
    expect(s.webdriver_ws_url).toMatch(/^ws:\/\/.+\/browsers\/.+\/webdriver\?jwt=/);
    const browser = await puppeteer.connect({ browserWSEndpoint: s.webdriver_ws_url, protocol: 'webDriverBiDi' });
    try {
      expect((await browser.userAgent()).length).toBeGreaterThan(0);
      expect(browser.constructor.name).toBe('BidiBrowser');
      const page = await browser.newPage();
      await page.goto(`${pages.url}/hello`);
      expect(await page.title()).toBe('Hello from the test page');
      expect(await page.evaluate(() => document.getElementById('h')!.textContent + ':' + 6 * 7)).toBe('hello:42');
      await page.close();
    } finally {
      await browser.disconnect();
    }
    // The session outlives its BiDi client.
    expect((await t.client.browsers.retrieve(s.session_id)).deleted_at).toBeUndefined();
    await t.client.browsers.deleteByID(s.session_id);
  });

  it('answers session.status and session.new like a BiDi remote end, and browser.close leaves the session running', async () => {
    const s = await t.client.browsers.create({ headless: true });
    const ws = new WebSocket(s.webdriver_ws_url);
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const status = await bidiCall(ws, 1, 'session.status', {});
    // The mapper that parses this client's commands runs in its own jailed process, not in the engine.
    const mapper = processWith('bidi-mapper-child.mjs');
    expect(mapper, 'a jailed BiDi mapper process').toBeDefined();
    expect(cmdlineOf(parentOf(mapper!))).toMatch(/^\S*bwrap /);
    expect(fs.existsSync(`/proc/${mapper}/root${t.dataDir}`)).toBe(false);
    expect(status).toMatchObject({ type: 'success', id: 1, result: { ready: expect.any(Boolean), message: expect.any(String) } });
    const created = await bidiCall(ws, 2, 'session.new', { capabilities: {} });
    expect(created).toMatchObject({ type: 'success', result: { capabilities: { browserName: expect.any(String), browserVersion: expect.any(String) } } });
    const tree = await bidiCall<{ contexts: unknown[] }>(ws, 3, 'browsingContext.getTree', {});
    expect(tree.result.contexts.length).toBeGreaterThan(0);
    const bad = await bidiCall(ws, 4, 'browsingContext.navigate', { context: 42 });
    expect(bad).toMatchObject({ type: 'error', id: 4, error: 'invalid argument' });
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    const bye = await bidiCall(ws, 5, 'browser.close', {});
    expect(bye).toMatchObject({ type: 'success', id: 5 });
    expect(await closed).toBe(1000);
    // The browser is still there: CDP answers through the session's CDP address.
    const cdp = await puppeteer.connect({ browserWSEndpoint: s.cdp_ws_url });
    expect(await cdp.version()).toMatch(/Chrom/);
    await cdp.disconnect();
    await t.client.browsers.deleteByID(s.session_id);
  });

  it('refuses a forged or missing token and closes clients with 1000 when the session ends', async () => {
    const s = await t.client.browsers.create({ headless: true });
    const forged = s.webdriver_ws_url.replace(/jwt=[^&]+/, 'jwt=eyJhbGciOiJIUzI1NiJ9.e30.bad');
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(forged);
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
    });
    expect(status).toBe(401);
    const ws = new WebSocket(s.webdriver_ws_url);
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    expect((await bidiCall(ws, 1, 'session.new', { capabilities: {} })).type).toBe('success');
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await t.client.browsers.deleteByID(s.session_id);
    expect(await closed).toBe(1000);
  });
});

function processWith(marker: string): number | undefined {
  const pid = fs
    .readdirSync('/proc')
    .find(
      (e) => /^\d+$/.test(e) && cmdlineOf(Number(e)).includes(marker) && !cmdlineOf(Number(e)).startsWith('bwrap') && !cmdlineOf(Number(e)).includes('/bwrap '),
    );
  return pid ? Number(pid) : undefined;
}
