/**
 * Web console, Live view pane: the engine's live view in an iframe shows screencast frames
 * (a non-blank canvas) and takes a click that reaches the page (a local page counting clicks
 * reports to the test server); the read-only switch reloads it read-only; the cursor switch
 * reaches the live view; the screenshot button shows a PNG; the viewport can be changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from 'playwright-core';
import { openConsole, type Console } from './console-harness.js';
import { createSession, openPane, startLocalSite, type LocalSite, TEST_TIMEOUT } from './session-panes-helpers.js';

let c: Console;
let site: LocalSite;
/** The first case's session, steered again by the last one (one browser for both). */
let liveId: string;

beforeAll(async () => {
  site = await startLocalSite();
  c = await openConsole();
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await site?.close();
}, TEST_TIMEOUT);

async function liveFrame(): Promise<Frame> {
  await expect.poll(() => c.page.frames().some((f) => /\/live\?/.test(f.url())), { timeout: 90_000 }).toBe(true);
  return c.page.frames().find((f) => /\/live\?/.test(f.url()))!;
}

/** Distinct colours in a sample of the canvas: a blank (all-black) canvas has one. */
function canvasColours(frame: Frame): Promise<number> {
  return frame.evaluate(() => {
    const cv = document.getElementById('screen') as HTMLCanvasElement;
    if (!cv.width) return 0;
    const d = cv.getContext('2d')!.getImageData(0, 0, cv.width, cv.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return seen.size;
  });
}

describe('session pane: live view', () => {
  it(
    'shows frames, takes a click, toggles read-only and cursor, takes a screenshot',
    async () => {
      const s = await createSession(c, { start_url: `${site.url}/click` });
      liveId = s.session_id;
      await openPane(c, s.session_id, 'live', 'Live view');
      const { page } = c;
      let frame = await liveFrame();
      await expect
        .poll(() => frame.evaluate(() => (window as unknown as { __liveView: { frames: number } }).__liveView.frames), { timeout: 90_000 })
        .toBeGreaterThan(0);
      await expect.poll(() => canvasColours(frame), { timeout: 90_000 }).toBeGreaterThan(1);
      // The page title reaches the live view's bar once the page has loaded.
      await expect.poll(() => frame.locator('#title').textContent(), { timeout: 90_000 }).toContain('click counter');

      await page
        .frameLocator('iframe[title="Live view"]')
        .locator('canvas')
        .click({ position: { x: 200, y: 200 } });
      await expect.poll(() => site.clicks, { timeout: 90_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.locator('.viewport-info').textContent()).toContain('1024 × 768');
      await c.screenshot('session-pane-live');

      // click, not uncheck(): the box shows the engine's state, so it only changes once the
      // POST computer/cursor has answered (uncheck() checks at once and failed under load).
      await page.getByLabel('Show cursor').click();
      await expect
        .poll(() => frame.evaluate(() => (window as unknown as { __liveView: { cursor: { visible: boolean } } }).__liveView.cursor.visible), {
          timeout: 90_000,
        })
        .toBe(false);
      await expect.poll(() => page.getByLabel('Show cursor').isChecked()).toBe(false);

      await page.getByLabel('Read-only').check();
      await expect.poll(() => page.locator('iframe[title="Live view"]').getAttribute('src')).toContain('readOnly=true');
      frame = await liveFrame();
      await expect.poll(() => frame.locator('#ro').isVisible(), { timeout: 90_000 }).toBe(true);
      await page
        .frameLocator('iframe[title="Live view"]')
        .locator('canvas')
        .click({ position: { x: 220, y: 220 } });
      // A read-only view forwards no input (its own counter of sent input messages stays 0).
      expect(await frame.evaluate(() => (window as unknown as { __liveView: { sent: number } }).__liveView.sent)).toBe(0);
      await page.getByRole('button', { name: /Screenshot/ }).click();
      const shot = page.getByRole('img', { name: 'Screenshot of the session' });
      await shot.waitFor({ timeout: 90_000 });
      await expect.poll(() => shot.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1024);
      await c.screenshot('session-pane-live-screenshot');
    },
    TEST_TIMEOUT,
  );

  it(
    'changes the viewport with PATCH and shows the new size',
    async () => {
      const s = await createSession(c);
      await openPane(c, s.session_id, 'live', 'Live view');
      const { page } = c;
      await page.locator('.viewport-info').getByRole('button', { name: 'change' }).click();
      await page.getByLabel('Viewport width').fill('800');
      await page.getByLabel('Viewport height').fill('600');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('.viewport-info').textContent(), { timeout: 90_000 }).toContain('800 × 600');
      const fromApi = await c.te.client.browsers.retrieve(s.session_id);
      expect(fromApi.viewport).toMatchObject({ width: 800, height: 600 });
    },
    TEST_TIMEOUT,
  );

  it(
    'steers: address, back, a tab switch the live view follows, 100 % zoom, a download toast',
    async () => {
      const { page, te } = c;
      await openPane(c, liveId, 'live', 'Live view');
      if (await page.getByLabel('Read-only').isChecked()) await page.getByLabel('Read-only').uncheck();
      const frame = await liveFrame();
      const title = () => frame.locator('#title').textContent();

      await page.getByLabel('Address').fill(`${site.url}/console`);
      await page.getByLabel('Address').press('Enter');
      await expect.poll(title, { timeout: 90_000 }).toContain('console ticker');
      await page.getByRole('button', { name: 'Back' }).click();
      await expect.poll(title, { timeout: 90_000 }).toContain('click counter');

      // A second tab: the live view shows the newest; the switcher brings the first one back.
      await te.api(`/browsers/${liveId}/cdp/json/new?${site.url}/json`, { method: 'PUT' });
      await expect.poll(title, { timeout: 90_000 }).toContain('/json');
      const tabs = page.getByLabel('Tab', { exact: true });
      await expect.poll(() => tabs.locator('option').count(), { timeout: 30_000 }).toBe(2);
      const first = (await tabs.locator('option').allTextContents()).find((t) => t.includes('click counter'))!;
      await tabs.selectOption({ label: first });
      await expect.poll(title, { timeout: 90_000 }).toContain('click counter');

      await page.getByLabel('Zoom').selectOption('100');
      await expect.poll(async () => (await page.locator('iframe[title="Live view"]').boundingBox())?.width).toBe(1024);

      await te.client.browsers.fs.writeFile(liveId, 'a,b\n', { path: '/downloads/report.csv' });
      await page.locator('.toast').filter({ hasText: 'Downloaded report.csv' }).waitFor({ timeout: 60_000 });
      await c.screenshot('session-pane-live-steering');
    },
    TEST_TIMEOUT,
  );
});
