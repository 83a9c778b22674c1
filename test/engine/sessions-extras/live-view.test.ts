import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { operatorBrowser } from '../../helpers/operator-browser.js';
import puppeteer from 'puppeteer-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { startTestPages, type TestPages } from './test-pages.js';

/** What the live-view page exposes on `window` for diagnostics and tests (live-view-page.ts). */
type LiveViewWindow = {
  __liveView: {
    frames: number;
    connected: boolean;
    page: { url?: string; title?: string } | null;
    meta: { deviceWidth?: number } | null;
    cursor: { x?: number; y?: number; visible?: boolean };
  };
};

let t: TestEngine;
let pages: TestPages;
let viewer: Browser;
/**
 * One headless session for every test but the headful one: a test first sends its tab to the
 * page it needs (`sharedAt`), then opens its own viewers. The test that crashes its browser runs last.
 */
let shared: { session_id: string; cdp_ws_url: string; browser_live_view_url?: string };
beforeAll(async () => {
  t = await startTestEngine();
  pages = await startTestPages();
  [viewer, shared] = await Promise.all([
    operatorBrowser(),
    // An animated page to start with: the crash test's restarted browser opens it again and keeps painting.
    t.client.browsers.create({ headless: true, timeout_seconds: 600, start_url: `${pages.url}/animated` }),
  ]);
});
afterAll(async () => {
  await viewer?.close();
  if (shared) await t.client.browsers.deleteByID(shared.session_id).catch(() => {});
  await t?.stop();
  await pages?.close();
});

/** The shared session, its tab loaded with `pagePath` of the test pages (a fresh page: its counters at zero). */
async function sharedAt(pagePath: string): Promise<typeof shared> {
  const b = await puppeteer.connect({ browserWSEndpoint: shared.cdp_ws_url, defaultViewport: null });
  try {
    const [tab] = await b.pages();
    await tab.goto(`${pages.url}${pagePath}`);
  } finally {
    await b.disconnect();
  }
  return shared;
}

async function frames(p: import('playwright-core').Page): Promise<number> {
  return p.evaluate(() => (window as unknown as LiveViewWindow).__liveView?.frames ?? 0);
}

/** Evaluates `fn` in the session's tab whose URL contains `path`, over CDP. */
async function inSessionPage<T>(cdpUrl: string, path: string, fn: () => T): Promise<T> {
  const b = await puppeteer.connect({ browserWSEndpoint: cdpUrl, defaultViewport: null });
  try {
    const [p] = (await b.pages()).filter((x) => x.url().includes(path));
    return await p.evaluate(fn);
  } finally {
    await b.disconnect();
  }
}

/** How many clicks the session's page has counted. */
const clicksIn = (cdpUrl: string) => inSessionPage(cdpUrl, '/clicks', () => (window as unknown as { clicks: number }).clicks);

describe('live view (browser_live_view_url)', () => {
  it('shows frames on a canvas and forwards a click to the page', async () => {
    const s = await sharedAt('/clicks');
    expect(s.browser_live_view_url).toMatch(/\/browsers\/.+\/live\?jwt=/);
    const p = await viewer.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      const first = await frames(p);
      await p.waitForFunction((n) => (window as unknown as LiveViewWindow).__liveView.frames > n, first, { timeout: 20_000 });
      // The canvas really holds the page's pixels (not a blank canvas).
      const nonBlank = await p.evaluate(() => {
        const c = document.getElementById('screen') as HTMLCanvasElement;
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let lit = 0;
        for (let i = 0; i < d.length; i += 4 * 97) if (d[i] + d[i + 1] + d[i + 2] > 30) lit++;
        return { w: c.width, h: c.height, lit };
      });
      expect(nonBlank.w).toBeGreaterThan(100);
      expect(nonBlank.lit).toBeGreaterThan(0);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.page?.url?.includes('/clicks'), null, { timeout: 10_000 });
      expect(await p.textContent('#size')).toMatch(/^\d+×\d+$/);

      const box = (await p.locator('#screen').boundingBox())!;
      await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await p.mouse.click(box.x + box.width / 3, box.y + box.height / 3);
      await expect.poll(() => clicksIn(s.cdp_ws_url), { timeout: 10_000 }).toBe(2);
      // The page's title changed with the clicks and the viewer was told.
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.page?.title === 'clicks 2', null, { timeout: 10_000 });
    } finally {
      await p.close();
    }
  });

  it('read-only viewers see frames but their clicks never reach the page', async () => {
    const s = await sharedAt('/clicks');
    const p = await viewer.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await p.goto(`${s.browser_live_view_url}&readOnly=true`);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      expect(await p.isVisible('#ro')).toBe(true);
      const box = (await p.locator('#screen').boundingBox())!;
      await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      // Bypass the page's own guard: a crafted client message must be ignored by the server too.
      await p.evaluate(async () => {
        const url = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + location.pathname + '/ws' + location.search;
        const ws = new WebSocket(url);
        await new Promise((r) => (ws.onopen = r));
        for (const action of ['down', 'up'])
          ws.send(JSON.stringify({ type: 'mouse', action, x: 50, y: 50, button: 'left', buttons: action === 'down' ? 1 : 0, clickCount: 1 }));
        ws.send(JSON.stringify({ type: 'mouse', action: 'click', x: 60, y: 60, button: 'left' }));
        await new Promise((r) => setTimeout(r, 300));
        ws.close();
      });
      // A writable viewer's click afterwards proves input does flow, and that the earlier ones were dropped.
      const w = await viewer.newPage({ viewport: { width: 800, height: 600 } });
      await w.goto(s.browser_live_view_url!);
      await w.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      const wb = (await w.locator('#screen').boundingBox())!;
      await w.mouse.click(wb.x + wb.width / 2, wb.y + wb.height / 2);
      await expect.poll(() => clicksIn(s.cdp_ws_url), { timeout: 10_000 }).toBe(1);
      await w.close();
    } finally {
      await p.close();
    }
  });

  it('follows a newly opened tab and refuses a viewer without a valid token', async () => {
    const s = await sharedAt('/animated');
    const p = await viewer.newPage();
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.page?.url?.includes('/animated'), null, { timeout: 20_000 });
      const b = await puppeteer.connect({ browserWSEndpoint: s.cdp_ws_url, defaultViewport: null });
      const tab = await b.newPage();
      await tab.goto(`${pages.url}/clicks`);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.page?.url?.includes('/clicks'), null, { timeout: 20_000 });
      const before = await frames(p);
      await p.waitForFunction((n) => (window as unknown as LiveViewWindow).__liveView.frames > n, before, { timeout: 20_000 });
      await tab.close();
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.page?.url?.includes('/animated'), null, { timeout: 20_000 });
      await b.disconnect();
      const res = await fetch(s.browser_live_view_url!.replace(/jwt=[^&]+/, 'jwt=forged'));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    } finally {
      await p.close();
    }
  });

  it('forwards keyboard input: typed text and special keys reach the focused field', async () => {
    const s = await sharedAt('/type');
    const p = await viewer.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      const box = (await p.locator('#screen').boundingBox())!;
      await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await p.keyboard.type('Hi there');
      await p.keyboard.press('Backspace');
      await p.keyboard.press('Enter');
      await expect
        .poll(() => inSessionPage(s.cdp_ws_url, '/type', () => (document.getElementById('i') as HTMLInputElement).value), { timeout: 10_000 })
        .toBe('Hi ther');
      expect(await inSessionPage(s.cdp_ws_url, '/type', () => (window as unknown as { enters: number }).enters)).toBe(1);
    } finally {
      await p.close();
    }
  });

  it('reflects the cursor state set through the computer API (hidden, position)', async () => {
    const s = await sharedAt('/animated');
    const p = await viewer.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      await t.client.browsers.computer.moveMouse(s.session_id, { x: 100, y: 80 });
      await p.waitForFunction(
        () => (window as unknown as LiveViewWindow).__liveView.cursor?.x === 100 && (window as unknown as LiveViewWindow).__liveView.cursor?.y === 80,
        null,
        { timeout: 10_000 },
      );
      expect(await p.isVisible('#cursor')).toBe(true);
      await t.client.browsers.computer.setCursorVisibility(s.session_id, { hidden: true });
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.cursor?.visible === false, null, { timeout: 10_000 });
      expect(await p.isVisible('#cursor')).toBe(false);
      expect(await p.evaluate(() => (document.getElementById('screen') as HTMLCanvasElement).style.cursor)).toBe('none');
      // A viewer connecting later starts from the current state.
      const late = await viewer.newPage();
      await late.goto(s.browser_live_view_url!);
      await late.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.cursor?.visible === false, null, { timeout: 10_000 });
      await late.close();
    } finally {
      await p.close();
    }
  });

  it('shows a headful (Xvfb) session too', async () => {
    const s = await t.client.browsers.create({ headless: false, start_url: `${pages.url}/animated`, viewport: { width: 1024, height: 768 } });
    const p = await viewer.newPage();
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 2, null, { timeout: 30_000 });
      expect(await p.evaluate(() => (window as unknown as LiveViewWindow).__liveView.page?.url)).toContain('/animated');
    } finally {
      await p.close();
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it('follows a viewport change made with PATCH /browsers/{id}', async () => {
    const s = await sharedAt('/animated');
    await t.client.browsers.update(s.session_id, { viewport: { width: 1024, height: 768, refresh_rate: 10 } });
    const p = await viewer.newPage();
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.meta?.deviceWidth === 1024, null, { timeout: 20_000 });
      await t.client.browsers.update(s.session_id, { viewport: { width: 800, height: 600, refresh_rate: 10 } });
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.meta?.deviceWidth === 800, null, { timeout: 20_000 });
      expect(await p.textContent('#size')).toMatch(/^800×/);
    } finally {
      await p.close();
    }
  });

  it('shows a static page (one paint) to the first viewer and to viewers joining later', async () => {
    const s = await sharedAt('/hello');
    const first = await viewer.newPage();
    const second = await viewer.newPage();
    try {
      await first.goto(s.browser_live_view_url!);
      await first.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      await second.goto(s.browser_live_view_url!);
      await second.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('keeps streaming after the browser crashes and is restarted', async () => {
    const s = await sharedAt('/animated');
    const p = await viewer.newPage();
    try {
      await p.goto(s.browser_live_view_url!);
      await p.waitForFunction(() => (window as unknown as LiveViewWindow).__liveView.frames > 0, null, { timeout: 20_000 });
      const sessions = t.engine.services.sessions as SessionManager;
      const pid = sessions.get(s.session_id)!.browser!.pid;
      process.kill(pid, 'SIGKILL');
      await expect.poll(() => sessions.get(s.session_id)?.browser?.pid, { timeout: 20_000 }).not.toBe(pid);
      const after = await frames(p);
      await p.waitForFunction((n) => (window as unknown as LiveViewWindow).__liveView.frames > n + 5, after, { timeout: 20_000 });
      expect(await p.evaluate(() => (window as unknown as LiveViewWindow).__liveView.connected)).toBe(true);
    } finally {
      await p.close();
    }
  });
});
