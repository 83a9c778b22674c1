/**
 * Web console, Files and HTTP panes: upload a text file and a PNG through the file input, see
 * them listed and previewed (text in a <pre>, the image decoded), create a folder, move a file
 * into it, have a bad move refused with the server's message, delete; then send a request
 * through the browser to a local server and see status 200, its headers and the pretty JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, openConsole, type Console } from './console-harness.js';
import { createSession, openPane, startLocalSite, type LocalSite, TEST_TIMEOUT, shown } from './session-panes-helpers.js';

let c: Console;
let site: LocalSite;
let sessionId: string;

beforeAll(async () => {
  site = await startLocalSite();
  c = await openConsole();
  sessionId = (await createSession(c)).session_id;
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await site?.close();
}, TEST_TIMEOUT);

describe('session pane: files', () => {
  it(
    'uploads, previews, creates a folder, moves and deletes',
    async () => {
      const { page, te } = c;
      await te.client.browsers.fs.createDirectory(sessionId, { path: '/work' });
      await openPane(c, sessionId, 'files', 'Files');
      await page.getByRole('button', { name: 'work', exact: true }).click();
      await page.getByRole('heading', { name: 'This folder is empty' }).waitFor();

      const png = await page.screenshot({ clip: { x: 0, y: 0, width: 64, height: 48 } });
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the files pane\nsecond line\n') },
        { name: 'shot.png', mimeType: 'image/png', buffer: png },
      ]);
      await page.getByRole('button', { name: 'notes.txt', exact: true }).waitFor({ timeout: 90_000 });
      expect(await (await te.client.browsers.fs.readFile(sessionId, { path: '/work/notes.txt' })).text()).toBe('hello from the files pane\nsecond line\n');

      await page.getByRole('button', { name: 'notes.txt', exact: true }).click();
      const preview = page.getByRole('complementary', { name: 'Preview of notes.txt' });
      await expect.poll(() => preview.locator('pre').textContent()).toContain('hello from the files pane');
      await page.getByRole('button', { name: 'shot.png', exact: true }).click();
      const img = page.getByRole('complementary', { name: 'Preview of shot.png' }).getByRole('img', { name: 'shot.png' });
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 90_000 }).toBe(64);
      await c.screenshot('session-pane-files');

      await page.getByRole('button', { name: 'New folder', exact: true }).click();
      const mk = page.getByRole('dialog', { name: 'New folder' });
      await mk.getByLabel('Folder path').fill('/work/archive');
      await mk.getByRole('button', { name: 'Create folder', exact: true }).click();
      await page.getByRole('button', { name: 'archive', exact: true }).waitFor();

      await page.getByRole('button', { name: 'Move notes.txt', exact: true }).click();
      const mv = page.getByRole('dialog', { name: 'Move or rename notes.txt' });
      await mv.getByLabel('New path').fill('../escape.txt');
      await mv.getByRole('button', { name: 'Move', exact: true }).click();
      // The server's Error message, verbatim, in the dialog.
      await shown(c, mv.getByRole('alert'));
      const refused = (await mv.getByRole('alert').textContent())!;
      const direct = await te.api(`/browsers/${sessionId}/fs/move`, { method: 'PUT', json: { src_path: '/work/notes.txt', dest_path: '../escape.txt' } });
      expect(direct.status).toBe(400);
      expect(refused).toBe(((await direct.json()) as { message: string }).message);
      await mv.getByLabel('New path').fill('/work/archive/renamed.txt');
      await mv.getByRole('button', { name: 'Move', exact: true }).click();
      await expect.poll(() => page.getByRole('button', { name: 'notes.txt', exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'archive', exact: true }).click();
      await page.getByRole('button', { name: 'renamed.txt', exact: true }).waitFor();
      await expect.poll(() => page.locator('.path-crumbs').textContent()).toContain('archive');

      await page.getByRole('button', { name: 'Delete renamed.txt', exact: true }).click();
      await page.getByRole('dialog', { name: 'Delete renamed.txt?' }).getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('heading', { name: 'This folder is empty' }).waitFor();
      const left = await te.client.browsers.fs.listFiles(sessionId, { path: '/work/archive' });
      expect(left).toEqual([]);

      // Download goes through the transport: the browser receives the file's bytes.
      await page.getByRole('button', { name: 'work', exact: true }).click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download shot.png', exact: true }).click()]);
      expect(download.suggestedFilename()).toBe('shot.png');
      expect((await downloadBytes(download)).equals(png)).toBe(true);
    },
    TEST_TIMEOUT,
  );
});

describe('session pane: HTTP', () => {
  it(
    'sends a request through the browser and shows status, headers and pretty JSON',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'http', 'HTTP');
      await page.getByLabel('Method').selectOption('POST');
      await page.getByLabel('URL').fill(`${site.url}/json`);
      await page.getByLabel('Headers').fill('X-From: pane-test');
      await page.getByLabel('Body').fill('{"a":1}');
      await page.getByLabel('URL').press('Control+Enter');
      const res = page.getByRole('region', { name: 'Response' });
      await shown(c, res);
      expect(await res.getByText('HTTP 200').count()).toBe(1);
      expect(await res.locator('table.headers').textContent()).toContain('pane-test');
      const body = (await res.locator('pre.response-body').textContent())!;
      expect(JSON.parse(body)).toEqual({ ok: true, items: [1, 2, 3], method: 'POST' });
      expect(body).toContain('\n  "ok": true'); // pretty-printed
      await c.screenshot('session-pane-http');

      await page.getByLabel('URL').fill('ftp://example.invalid/');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await shown(c, page.locator('.http-pane [role="alert"]'));
      expect(await page.locator('.http-pane [role="alert"]').textContent()).toMatch(/url/i);
    },
    TEST_TIMEOUT,
  );
});
