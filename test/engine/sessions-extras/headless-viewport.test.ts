/**
 * A headless session's page area is exactly its viewport: the first tab, tabs and windows
 * opened later (Playwright `newPage`, `Target.createTarget` with a new window), a
 * `/computer/screenshot`, the emulated screen, after `PATCH viewport` and after a browser
 * restart. New headless Chromium counts its emulated tab strip and toolbar in the window
 * size, so without fitting the page was ~87 px shorter than asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { processesWith, sessionDirsLeft, waitFor } from '../../helpers/chromium-web.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';

let te: TestEngine;

beforeAll(async () => {
  te = await startTestEngine();
});

afterAll(async () => {
  await te.stop();
  expect(processesWith(te.dataDir)).toEqual([]);
  expect(sessionDirsLeft(te.dataDir)).toEqual([]);
});

const manager = () => te.engine.services.sessions as SessionManager;

const sizeOf = (page: Page) => page.evaluate(() => ({ width: innerWidth, height: innerHeight, screen: `${screen.width}x${screen.height}` }));

/** Width and height from a PNG's IHDR chunk. */
async function screenshotSize(sessionId: string): Promise<{ width: number; height: number }> {
  const res = await te.client.browsers.computer.captureScreenshot(sessionId);
  const png = Buffer.from(await res.arrayBuffer());
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** A page in a new window, opened the way a raw CDP client does. */
async function newWindowPage(browser: Browser): Promise<Page> {
  const context = browser.contexts()[0];
  const cdp = await browser.newBrowserCDPSession();
  const opened = context.waitForEvent('page');
  await cdp.send('Target.createTarget', { url: 'about:blank', newWindow: true });
  const page = await opened;
  await cdp.detach();
  return page;
}

describe('headless viewport', () => {
  for (const [width, height] of [
    [800, 600],
    [1280, 720],
  ]) {
    it(`gives every page of a ${width}x${height} session exactly that size, screenshots too`, async () => {
      const s = await te.client.browsers.create({ headless: true, viewport: { width, height } });
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        const context = browser.contexts()[0];
        const first = context.pages()[0];
        expect(await sizeOf(first)).toEqual({ width, height, screen: `${width}x${height}` });
        const tab = await context.newPage();
        expect(await sizeOf(tab)).toEqual({ width, height, screen: `${width}x${height}` });
        const win = await newWindowPage(browser);
        await expect.poll(() => sizeOf(win), { timeout: 30_000 }).toEqual({ width, height, screen: `${width}x${height}` });
        await win.close();
        await tab.close();
        expect(await screenshotSize(s.session_id)).toEqual({ width, height });
      } finally {
        await browser.close();
        await te.client.browsers.deleteByID(s.session_id);
      }
    });
  }

  it('follows PATCH viewport (pages, screen, new windows, screenshots) and keeps it across a browser restart', async () => {
    const s = await te.client.browsers.create({ headless: true, viewport: { width: 800, height: 600 } });
    let browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const page = browser.contexts()[0].pages()[0];
      expect(await sizeOf(page)).toEqual({ width: 800, height: 600, screen: '800x600' });

      await te.client.browsers.update(s.session_id, { viewport: { width: 1024, height: 768 } });
      // The PATCH answers once the windows fit: no waiting needed for existing pages.
      expect(await sizeOf(page)).toEqual({ width: 1024, height: 768, screen: '1024x768' });
      expect(await screenshotSize(s.session_id)).toEqual({ width: 1024, height: 768 });
      // A window opened after the PATCH starts at the launch size and is fitted when it appears.
      const win = await newWindowPage(browser);
      await expect.poll(() => sizeOf(win), { timeout: 30_000 }).toEqual({ width: 1024, height: 768, screen: '1024x768' });
      await win.close();
      await browser.close();

      const rt = manager().get(s.session_id)!;
      const old = rt.browser!;
      process.kill(-old.pgid, 'SIGKILL');
      await waitFor(() => !!rt.browser && rt.browser.pid !== old.pid, 60_000, 'restart');
      browser = await chromium.connectOverCDP(s.cdp_ws_url);
      const again = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
      expect(await sizeOf(again)).toEqual({ width: 1024, height: 768, screen: '1024x768' });
    } finally {
      await browser.close();
      await te.client.browsers.deleteByID(s.session_id);
    }
  });
});
