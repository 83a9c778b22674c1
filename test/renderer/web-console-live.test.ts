/**
 * The web console sees the engine live: with the console open (no reload, and no timer-driven
 * refetch left in the sessions screens), an SDK client's create, rename and delete show up
 * within a second through the change feed; after the engine restarts on the same port the
 * console reconnects by itself and shows a session created afterwards; while it is down the
 * console says so, disables its actions and says how old its data is (issue 28 item 6). Also: a session opens
 * on its live view and then on the last pane chosen; icons are SVG, not emoji glyphs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildRenderer, saveScreen } from './console-harness.js';
import { operatorBrowser } from '../helpers/operator-browser.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

/** How long a change may take to show: the brief's bound, not a measurement. */
const LIVE_MS = 1000;

let build: Awaited<ReturnType<typeof buildRenderer>>;
let te: TestEngine;
let browser: Browser;
let page: Page;
let navigations = 0;

beforeAll(async () => {
  build = await buildRenderer();
  te = await startTestEngine({ uiDir: build.rendererDir });
  browser = await operatorBrowser();
  page = await (await browser.newContext({ viewport: { width: 1360, height: 860 } })).newPage();
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) navigations++;
  });
  await page.goto(te.url + '/');
  await page.getByLabel('API key').fill(te.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.locator('[data-feed-status="live"]').waitFor();
});
afterAll(async () => {
  await browser?.close().catch(() => {});
  await te?.stop();
  build?.cleanup();
});

const link = (name: string) => page.getByRole('link', { name, exact: true });

describe('web console follows the engine live', () => {
  it('shows a session the SDK creates, renames and deletes within a second, without reloading', async () => {
    await page.goto(te.url + '/#/sessions');
    await page.getByRole('heading', { name: 'No running sessions' }).waitFor();
    const before = navigations;

    const s = await te.client.browsers.create({ headless: true, name: 'sdk-made', timeout_seconds: 300 });
    await expect.poll(() => link('sdk-made').count(), { timeout: LIVE_MS }).toBe(1);
    await saveScreen(page, 'live-sessions-list');

    await te.client.browsers.update(s.session_id, { name: 'sdk-renamed' });
    await expect.poll(() => link('sdk-renamed').count(), { timeout: LIVE_MS }).toBe(1);
    expect(await link('sdk-made').count()).toBe(0);

    await te.client.browsers.deleteByID(s.session_id);
    await expect.poll(() => link('sdk-renamed').count(), { timeout: LIVE_MS }).toBe(0);
    expect(navigations).toBe(before);
  });

  it('opens a session on its live view, then on the last pane chosen; icons are SVG', async () => {
    const s = await te.client.browsers.create({ headless: true, name: 'panes', timeout_seconds: 300 });
    await page.goto(`${te.url}/#/sessions/${s.session_id}`);
    await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe('Live view');
    await page.locator('iframe[title="Live view"]').waitFor();
    await saveScreen(page, 'live-session-view');

    await te.client.browsers.fs.createDirectory(s.session_id, { path: '/tmp/a-folder' });
    await page.getByRole('tab', { name: 'Files' }).click();
    await page.goto(te.url + '/#/sessions');
    await page.goto(`${te.url}/#/sessions/${s.session_id}`);
    await page.reload();
    await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe('Files');
    await page.getByRole('button', { name: 'tmp', exact: true }).click();
    await page.getByRole('button', { name: 'a-folder', exact: true }).waitFor();
    expect(await page.locator('svg[data-icon="folder"]').count()).toBeGreaterThan(0);
    expect(await page.locator('body').innerText()).not.toMatch(/\p{Extended_Pictographic}/u);
    await saveScreen(page, 'live-session-files');

    // Ended by another client: the open view turns to "deleted" by itself.
    await te.client.browsers.deleteByID(s.session_id);
    await page.getByText('deleted', { exact: true }).waitFor({ timeout: LIVE_MS });
  });

  it('reconnects after an engine restart on the same port and shows a session created afterwards', async () => {
    await page.goto(te.url + '/#/sessions');
    await page.locator('[data-feed-status="live"]').waitFor();
    const port = Number(new URL(te.url).port);
    await te.engine.stop();
    await page.locator('[data-feed-status="offline"]').waitFor();
    const down = page.getByRole('alert').filter({ hasText: 'The engine is not reachable' });
    await down.waitFor({ timeout: 30_000 });
    expect(await down.textContent()).toMatch(/last updated \d{2}:\d{2}:\d{2}/);
    expect(await page.getByRole('button', { name: /New session/ }).isDisabled()).toBe(true);
    const before = navigations;
    const again = await startTestEngine({ port, dataDir: te.dataDir, uiDir: build.rendererDir, databaseUrl: te.engine.config.databaseUrl });
    const old = te;
    te = {
      ...again,
      stop: async () => {
        await again.stop();
        await old.stop();
      },
    };
    await page.locator('[data-feed-status="live"]').waitFor({ timeout: 15_000 });
    await down.waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: /New session/ }).isDisabled()).toBe(false);

    await again.client.browsers.create({ headless: true, name: 'after-restart', timeout_seconds: 300 });
    await expect.poll(() => link('after-restart').count(), { timeout: LIVE_MS }).toBe(1);
    expect(navigations).toBe(before);
  });
});
