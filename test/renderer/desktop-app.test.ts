/**
 * The desktop app's renderer as the app runs it: loaded from file://, talking to main only
 * through the real preload and the real main-process core (see desktop/desktop-harness.ts),
 * with the embedded engine started by the engine host under a per-launch key. Files are
 * uploaded, previewed and downloaded, a screenshot is taken, live view shows frames, a
 * terminal runs a command and a log streams — and the page itself never calls the engine for
 * anything but the browser-loaded views (live view, terminal socket), so no pane depends on
 * CORS from the file:// origin.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Kernel from '@onkernel/sdk';
import { openDesktopApp, type DesktopApp } from './desktop/desktop-harness.js';
import { startTestEngine } from '../helpers/engine.js';
import { startLocalSite, TEST_TIMEOUT, type LocalSite } from './session-panes-helpers.js';
import { misfits } from './layout-check.js';

let app: DesktopApp;
let site: LocalSite;
let sessionId: string;
let engineUrl: string;

async function api<T>(method: 'GET' | 'POST' | 'DELETE', p: string, body?: unknown): Promise<T> {
  return (await app.core.controlPlane.request({ method, path: p, ...(body !== undefined ? { body } : {}) })).body as T;
}

beforeAll(async () => {
  site = await startLocalSite();
  app = await openDesktopApp();
  engineUrl = app.core.host.current()!.url;
  sessionId = (
    await api<{ session_id: string }>('POST', '/browsers', {
      headless: true,
      timeout_seconds: 600,
      viewport: { width: 1024, height: 768 },
      start_url: `${site.url}/click`,
    })
  ).session_id;
}, TEST_TIMEOUT);
afterAll(async () => {
  await app?.close();
  await site?.close();
}, TEST_TIMEOUT);

async function openPane(tab: string, title: string): Promise<void> {
  await app.open(`/sessions/${sessionId}/${tab}`);
  await app.page.getByRole('tab', { name: title, selected: true }).waitFor({ timeout: 30_000 });
}

describe('desktop app (file:// renderer, real preload and main core)', () => {
  it(
    'starts on the local engine with no sign-in and lists the session',
    async () => {
      const { page } = app;
      await app.open('/sessions');
      await page
        .getByRole('link', { name: new RegExp(sessionId.slice(0, 8)) })
        .first()
        .waitFor();
      // The renderer only ever sees masked keys: the launch key is not in the page.
      expect(await page.content()).not.toContain(app.core.host.current()!.apiKey);
      expect(await page.evaluate(() => typeof (window as unknown as { api?: unknown }).api)).toBe('object');
      // The page's origin is file://, so a direct fetch to the engine is cross-origin and refused
      // (the engine sends no CORS headers): what the panes must never depend on.
      expect(
        await page.evaluate(
          (u) =>
            fetch(`${u}/healthz`).then(
              () => 'answered',
              () => 'refused',
            ),
          engineUrl,
        ),
      ).toBe('refused');
      await app.screenshot('desktop-sessions');
    },
    TEST_TIMEOUT,
  );

  it(
    'follows the change feed through main: a session an SDK client creates appears, and goes when deleted, without a reload',
    async () => {
      const { page } = app;
      await app.open('/sessions');
      await page.locator('[data-feed-status="live"]').waitFor({ timeout: 30_000 });
      const sdk = new Kernel({ baseURL: engineUrl, apiKey: app.core.host.current()!.apiKey, maxRetries: 0 });
      const made = await sdk.browsers.create({ headless: true, name: 'desktop-feed', timeout_seconds: 120 });
      await expect.poll(() => page.getByRole('link', { name: 'desktop-feed', exact: true }).count(), { timeout: 30_000 }).toBe(1);
      await sdk.browsers.deleteByID(made.session_id);
      await expect.poll(() => page.getByRole('link', { name: 'desktop-feed', exact: true }).count(), { timeout: 30_000 }).toBe(0);
    },
    TEST_TIMEOUT,
  );

  it(
    'uploads, previews and downloads files through main',
    async () => {
      const { page } = app;
      await app.core.controlPlane.request({ method: 'PUT', path: `/browsers/${sessionId}/fs/create_directory`, body: { path: '/work' } });
      await openPane('files', 'Files');
      await page.getByRole('button', { name: 'work', exact: true }).click();
      await page.getByRole('heading', { name: 'This folder is empty' }).waitFor();
      const png = await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 48 } });
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the desktop app\n') },
        { name: 'shot.png', mimeType: 'image/png', buffer: png },
      ]);
      await page.getByRole('button', { name: 'shot.png', exact: true }).waitFor({ timeout: 90_000 });
      const stored = await app.core.controlPlane.binary({ method: 'GET', path: `/browsers/${sessionId}/fs/read_file`, query: { path: '/work/shot.png' } });
      expect(Buffer.from(stored.data).equals(png)).toBe(true);

      await page.getByRole('button', { name: 'notes.txt', exact: true }).click();
      const preview = page.getByRole('complementary', { name: 'Preview of notes.txt' });
      await expect.poll(() => preview.locator('pre').textContent(), { timeout: 90_000 }).toContain('hello from the desktop app');
      await page.getByRole('button', { name: 'shot.png', exact: true }).click();
      const img = page.getByRole('complementary', { name: 'Preview of shot.png' }).getByRole('img', { name: 'shot.png' });
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 90_000 }).toBe(64);
      await app.screenshot('desktop-files');

      await page.getByRole('button', { name: 'Download notes.txt', exact: true }).click();
      await expect
        .poll(() => fs.readFile(path.join(app.downloads, 'notes.txt'), 'utf8').catch(() => ''), { timeout: 90_000 })
        .toBe('hello from the desktop app\n');
    },
    TEST_TIMEOUT,
  );

  it(
    'shows live view frames and takes a screenshot',
    async () => {
      const { page } = app;
      await openPane('live', 'Live view');
      await expect.poll(() => page.frames().some((f) => /\/live\?/.test(f.url())), { timeout: 90_000 }).toBe(true);
      const frame = page.frames().find((f) => /\/live\?/.test(f.url()))!;
      await expect
        .poll(() => frame.evaluate(() => (window as unknown as { __liveView: { frames: number } }).__liveView.frames), { timeout: 90_000 })
        .toBeGreaterThan(0);
      // The preload runs in the app's top frame only: the engine's live view page has no bridge.
      expect(await frame.evaluate(() => 'api' in window)).toBe(false);
      await expect.poll(() => frame.locator('#title').textContent(), { timeout: 90_000 }).toContain('click counter');
      await page.getByRole('button', { name: /Screenshot/ }).click();
      const shot = page.getByRole('img', { name: 'Screenshot of the session' });
      await shot.waitFor({ timeout: 90_000 });
      await expect.poll(() => shot.evaluate((el: HTMLImageElement) => el.naturalWidth), { timeout: 90_000 }).toBe(1024);
      // The start page is a full-window blue button: the PNG shows it, not a blank page.
      const corner = await shot.evaluate((el: HTMLImageElement) => {
        const cv = document.createElement('canvas');
        cv.width = el.naturalWidth;
        cv.height = el.naturalHeight;
        const ctx = cv.getContext('2d')!;
        ctx.drawImage(el, 0, 0);
        return Array.from(ctx.getImageData(100, 100, 1, 1).data.slice(0, 3));
      });
      expect(corner).toEqual([0x2f, 0x5b, 0xea]);
      await app.screenshot('desktop-live-screenshot');
    },
    TEST_TIMEOUT,
  );

  it(
    'runs a command in a terminal and streams a log over the stream port',
    async () => {
      const { page } = app;
      await openPane('processes', 'Processes');
      await page.getByRole('button', { name: /Open terminal/ }).click();
      const term = page.getByRole('log', { name: /Terminal: bash/ });
      await expect.poll(() => term.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toMatch(/[$#]\s*$/);
      await term.click();
      await page.keyboard.type('echo desk-$((6*7)) > /work/desk.log; cat /work/desk.log');
      await page.keyboard.press('Enter');
      await expect.poll(() => term.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toMatch(/desk-42/);
      await app.screenshot('desktop-terminal');

      await openPane('logs', 'Logs');
      await page.getByLabel('Source').selectOption('path');
      await page.getByLabel('File path').fill('/work/desk.log');
      await page.getByRole('button', { name: 'Show' }).click();
      const con = page.getByRole('log', { name: 'Log console' });
      await expect.poll(() => con.locator('.xterm-rows').textContent(), { timeout: 90_000 }).toContain('desk-42');
      await app.screenshot('desktop-logs');
    },
    TEST_TIMEOUT,
  );

  it(
    'records a replay, plays it from the session URL and downloads it through main',
    async () => {
      const { page } = app;
      await openPane('replays', 'Replays');
      await page.getByLabel('Framerate (fps)').fill('10');
      await page.getByRole('button', { name: 'Start recording' }).click();
      const row = page.locator('table.replays tbody tr').first();
      await expect.poll(() => row.textContent(), { timeout: 90_000 }).toContain('recording');
      await expect.poll(async () => (await row.locator('td').nth(2).textContent())!.trim(), { timeout: 120_000 }).toMatch(/^0:0[1-9]|^0:[1-5]\d|^[1-9]/);
      await row.getByRole('button', { name: 'Stop' }).click();
      // A <video> on the session's JWT URL: a media load, which needs no CORS from file://.
      const video = page.getByLabel('Replay player');
      await video.waitFor({ timeout: 120_000 });
      await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 120_000 }).toBeGreaterThanOrEqual(2);
      expect(await video.evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(0);
      await app.screenshot('desktop-replays');
      const [replay] = await api<Array<{ replay_id: string }>>('GET', `/browsers/${sessionId}/replays`);
      await page.getByRole('button', { name: `Download ${replay.replay_id}` }).click();
      const saved = path.join(app.downloads, `replay-${replay.replay_id}.mp4`);
      await expect
        .poll(async () => (await fs.readFile(saved).catch(() => Buffer.alloc(0))).subarray(4, 8).toString('latin1'), { timeout: 90_000 })
        .toBe('ftyp');
    },
    TEST_TIMEOUT,
  );

  it(
    'adds a remote server with its key kept in main, switches to it and back',
    async () => {
      const { page } = app;
      const remote = await startTestEngine();
      try {
        const remoteSession = await remote.client.browsers.create({ headless: true, timeout_seconds: 120 });
        await app.open('/connections');
        await page.getByLabel('Name').fill('Staging');
        await page.getByLabel('Server URL').fill(remote.url);
        await page.getByLabel('API key').fill('bdk_not_a_real_key_000000');
        await page.getByRole('button', { name: 'Add server' }).click();
        // The remote server's own refusal, shown in the form; nothing is saved.
        await expect.poll(() => page.locator('form .form-error').textContent(), { timeout: 90_000 }).toMatch(/\S/);
        expect(app.core.connections.list().filter((c) => c.kind === 'remote')).toEqual([]);

        await page.getByLabel('API key').fill(remote.adminKey);
        await page.getByRole('button', { name: 'Add server' }).click();
        const row = page.getByRole('row', { name: /Staging/ });
        await row.waitFor();
        await row.getByRole('button', { name: 'Use' }).click();
        await expect.poll(() => row.textContent()).toContain('active');
        await app.screenshot('desktop-connections');
        // Only main and the vault file know the key, and the file holds it encrypted.
        expect(await page.content()).not.toContain(remote.adminKey);
        expect(await fs.readFile(path.join(app.userData, 'credentials.json'), 'utf8')).not.toContain(remote.adminKey);

        await app.open('/sessions');
        await page.getByRole('link', { name: remoteSession.session_id }).waitFor();
        expect(await page.getByRole('link', { name: sessionId }).count()).toBe(0);
        // The sidebar switcher takes it back to the local engine.
        await page.getByRole('combobox', { name: /^Connection/ }).selectOption({ label: 'This computer' });
        await page.getByRole('link', { name: sessionId }).waitFor();
      } finally {
        await remote.stop();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'Settings: refuses a bad port with its message, saves a valid change for the next start, and fits at 1024×700',
    async () => {
      const { page } = app;
      await app.open('/settings');
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      const engine = page.getByLabel('Engine');
      await engine.getByText('running', { exact: true }).waitFor();
      await engine.getByText(engineUrl).waitFor();

      await page.getByLabel('Port').fill('80');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect
        .poll(() => page.locator('form .form-error').textContent())
        .toBe('port 80 needs administrator rights (below 1024): use 1024 to 65535, or 0 for a free port at each start');
      expect(app.core.settings.get().port).toBe(0);

      await page.getByLabel('Port').fill('0');
      await page.getByLabel('Standby browsers').fill('0');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Saved settings differ from those the engine runs with.').waitFor();
      expect(app.core.settings.get()).toMatchObject({ port: 0, standby: 0 });
      await app.screenshot('desktop-settings');

      // The desktop-only screens fit the smallest window the app is tested at, as the web console's do (layout-fit.test.ts).
      await page.setViewportSize({ width: 1024, height: 700 });
      try {
        for (const route of ['/settings', '/connections']) {
          await app.open(route);
          await page.locator('main.content h1').first().waitFor();
          expect(await page.evaluate(misfits)).toEqual([]);
        }
      } finally {
        await page.setViewportSize({ width: 1360, height: 860 });
      }
    },
    TEST_TIMEOUT,
  );

  it('never fetched the engine from the page except for browser-loaded views', () => {
    // (The first test's own cross-origin probe of /healthz is left out.)
    const engine = app.pageRequests.filter((r) => r.includes(engineUrl.replace(/^http:\/\//, '')) && !r.endsWith('/healthz'));
    expect(engine.length).toBeGreaterThan(0);
    // Live view page + its assets, the terminal socket and the replay video load from the
    // engine by design (the browser loads them; none needs CORS).
    const allowed = /\/browsers\/[^/?]+\/(live|process\/[^/?]+\/attach|replays\/[^/?]+)(\?|\/|$)|\/live-view\//;
    expect(engine.filter((r) => !allowed.test(r))).toEqual([]);
    expect(app.invokes).toContain('api:binary');
    expect(app.invokes).toContain('api:download');
  });
});
