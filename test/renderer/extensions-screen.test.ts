/**
 * Web console, Extensions screen against a real engine: the empty state, a zip without a
 * manifest refused with the server's message in the dialog, an extension uploaded with a name
 * and listed with its size and checksum, downloaded byte for byte, found by search, and deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, openConsole, type Console } from './console-harness.js';
import { markerExtension, sha256, zipOf } from '../engine/extensions/extension-zips.js';

let c: Console;

beforeAll(async () => {
  c = await openConsole();
  await c.signIn();
});
afterAll(async () => {
  await c?.close();
});

describe('web console: extensions', () => {
  it('uploads, lists, downloads and deletes an extension; a bad zip shows the server message', async () => {
    const { page, te } = c;
    page.setDefaultTimeout(90_000);
    await page.getByRole('link', { name: 'Extensions' }).click();
    await page.getByRole('heading', { name: 'No extensions' }).waitFor();

    await page.getByRole('button', { name: 'Upload extension' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Upload extension' });
    await dialog
      .getByLabel('Zip file')
      .setInputFiles({ name: 'broken.zip', mimeType: 'application/zip', buffer: await zipOf({ 'readme.txt': 'no manifest here' }) });
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/manifest\.json/);

    const zip = await markerExtension('ui-marker');
    await dialog.getByLabel('Zip file').setInputFiles({ name: 'marker.zip', mimeType: 'application/zip', buffer: zip });
    await dialog.getByLabel('Name').fill('ui-marker-ext');
    await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: 'ui-marker-ext' });
    await row.waitFor();
    expect(await row.textContent()).toContain(sha256(zip).slice(0, 12));
    const [stored] = (await te.client.extensions.list({ name: 'ui-marker-ext' })).items;
    expect(stored).toMatchObject({ name: 'ui-marker-ext', size_bytes: zip.length, checksum: sha256(zip) });
    await c.screenshot('extensions');

    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Download ui-marker-ext' }).click()]);
    expect(download.suggestedFilename()).toBe('ui-marker-ext.zip');
    expect((await downloadBytes(download)).equals(zip)).toBe(true);

    await page.getByLabel('Search extensions').fill('no-such-extension');
    await page.getByRole('heading', { name: 'No extensions' }).waitFor();
    await page.getByLabel('Search extensions').fill('ui-marker');
    await row.waitFor();

    await row.getByRole('button', { name: 'Delete ui-marker-ext' }).click();
    await page
      .getByRole('dialog', { name: /Delete extension ui-marker-ext/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('heading', { name: 'No extensions' }).waitFor();
    expect((await te.client.extensions.list({ name: 'ui-marker-ext' })).items).toHaveLength(0);
  });
});
