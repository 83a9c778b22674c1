/**
 * The CDP address with real clients: Playwright connectOverCDP and Puppeteer connect through
 * the proxy (navigating a local page), `/json/version` pointing at the external address,
 * stealth hiding navigator.webdriver, `Browser.close` not ending the session, a close frame
 * when the session ends, and crash handling (kill -9 → restart and reconnect; 3 in 60 s → end).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { WebSocket } from 'ws';
import type { BrowserCreateResponse } from '@onkernel/sdk/resources/browsers/browsers';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { processesWith, sessionDirsLeft, startTestWebServer, waitFor, type TestWebServer } from '../../helpers/chromium-web.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';

let te: TestEngine;
let web: TestWebServer;

beforeAll(async () => {
  te = await startTestEngine();
  web = await startTestWebServer();
});

afterAll(async () => {
  await web.close();
  await te.stop();
  expect(processesWith(te.dataDir)).toEqual([]);
  expect(sessionDirsLeft(te.dataDir)).toEqual([]);
});

const manager = () => te.engine.services.sessions as SessionManager;

describe('CDP proxy', () => {
  // One browser for the cases that connect, disconnect and check tokens: none of them needs a
  // fresh one (a launch is ~2 CPU-s), and each closes what it opened. The 1001 case ends it, so
  // it comes after them; the crash and restart cases make their own.
  let shared: BrowserCreateResponse;
  beforeAll(async () => {
    shared = await te.client.browsers.create({ headless: true, stealth: true, timeout_seconds: 300 });
  });
  afterAll(async () => {
    // Already ended by the 1001 case unless that one failed first.
    await te.client.browsers.deleteByID(shared.session_id).catch(() => {});
  });

  it('lets Playwright connect over cdp_ws_url, navigate a local page and read its title; stealth hides webdriver', async () => {
    const s = shared;
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    const context = browser.contexts()[0];
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${web.url}/title/Hello%20Playwright`);
    expect(await page.title()).toBe('Hello Playwright');
    expect(await page.evaluate(() => navigator.webdriver)).toBe(false);
    expect(await page.evaluate(() => navigator.userAgent)).not.toContain('Headless');
    await browser.close();
    // Disconnecting is not deleting.
    expect((await te.client.browsers.retrieve(s.session_id)).session_id).toBe(s.session_id);
  });

  it('lets Puppeteer connect, serves /json/version with the external address, and survives Browser.close', async () => {
    const s = shared;
    const jwt = new URL(s.cdp_ws_url).searchParams.get('jwt');
    const info = await (await fetch(`${s.base_url}/cdp/json/version?jwt=${jwt}`)).json();
    expect(info.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/browsers/${s.session_id}/cdp\\?jwt=`));
    expect(info.webSocketDebuggerUrl).not.toMatch(/devtools\/browser/);
    expect(info.Browser).toMatch(/Chrom/);

    const browser = await puppeteer.connect({ browserWSEndpoint: s.cdp_ws_url, defaultViewport: null });
    const page = await browser.newPage();
    await page.goto(`${web.url}/title/Hello%20Puppeteer`);
    expect(await page.title()).toBe('Hello Puppeteer');
    await browser.close(); // sends Browser.close: answered by the proxy, session kept
    expect(manager().get(s.session_id)).toBeDefined();

    // Several clients side by side, and the browser is still usable after the close above.
    const a = await chromium.connectOverCDP(s.cdp_ws_url);
    // The pages that client opened were closed with it.
    await waitFor(
      () =>
        a
          .contexts()[0]
          .pages()
          .every((p) => !p.url().includes('Hello%20Puppeteer')),
      10_000,
      'puppeteer page closed',
    );
    const b = await puppeteer.connect({ browserWSEndpoint: info.webSocketDebuggerUrl, defaultViewport: null });
    const pa = await a.contexts()[0].newPage();
    await pa.goto(`${web.url}/title/A`);
    const pb = await b.newPage();
    await pb.goto(`${web.url}/title/B`);
    expect([await pa.title(), await pb.title()]).toEqual(['A', 'B']);
    await a.close();
    await b.disconnect();
  });

  it('refuses upgrades without a valid token for that session', async () => {
    const s = shared;
    const other = await te.client.browsers.create({ headless: true });
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => resolve(-1));
      });
    const base = s.cdp_ws_url.split('?')[0];
    expect(await status(base)).toBe(401);
    expect(await status(`${base}?jwt=forged.token.here`)).toBe(401);
    expect(await status(`${base}?jwt=${new URL(other.cdp_ws_url).searchParams.get('jwt')}`)).toBe(403);
    expect(await status(base, { authorization: `Bearer ${te.adminKey}` })).toBe(101);
    expect(await status(s.cdp_ws_url)).toBe(101);
    await te.client.browsers.deleteByID(other.session_id);
  });

  it('sends every client a 1001 close frame when the session ends', async () => {
    const s = shared;
    const ws = new WebSocket(s.cdp_ws_url);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    await te.client.browsers.deleteByID(s.session_id);
    expect(await closed).toEqual({ code: 1001, reason: 'session ended' });
  });

  it('restarts a browser killed with SIGKILL (group) and accepts reconnects on the same URL', async () => {
    const s = await te.client.browsers.create({ headless: true });
    const rt = manager().get(s.session_id)!;
    const first = rt.browser!;
    const ws = new WebSocket(s.cdp_ws_url);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    process.kill(-first.pgid, 'SIGKILL');
    expect([1011, 1012]).toContain(await closed);
    await waitFor(() => !!rt.browser && rt.browser.pid !== first.pid, 30_000, 'restart');
    expect(processesWith(rt.dirs.userData).length).toBeGreaterThan(0);
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    const page = await browser.contexts()[0].newPage();
    await page.goto(`${web.url}/title/after%20crash`);
    expect(await page.title()).toBe('after crash');
    await browser.close();
    expect(rt.restarts).toBe(1);
    await te.client.browsers.deleteByID(s.session_id);
  });

  it('ends the session after 3 crashes within 60 s', async () => {
    const s = await te.client.browsers.create({ headless: true });
    const rt = manager().get(s.session_id)!;
    for (let i = 0; i < 3; i++) {
      await rt.ready();
      const pid = rt.browser!.pid;
      process.kill(-pid, 'SIGKILL');
      if (i < 2) await waitFor(() => !!rt.browser && rt.browser.pid !== pid, 30_000, `restart ${i + 1}`);
    }
    await waitFor(async () => !!(await te.client.browsers.retrieve(s.session_id, { include_deleted: true })).deleted_at, 30_000, 'session end');
    await expect(te.client.browsers.retrieve(s.session_id)).rejects.toMatchObject({ status: 404 });
    // The ended session says so (issue 28's end reasons): the engine ended it, no caller did.
    const ended = (await te.client.browsers.retrieve(s.session_id, { include_deleted: true })) as { ended_reason?: string; ended_by?: string };
    expect(ended.ended_reason).toBe('browser_crashed');
    expect(ended.ended_by).toBeFalsy();
    expect(processesWith(rt.dirs.userData)).toEqual([]);
    expect(sessionDirsLeft(te.dataDir)).not.toContain(s.session_id);
  });
});
