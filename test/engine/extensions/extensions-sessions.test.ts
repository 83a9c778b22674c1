/**
 * Extensions in real Chromium: a session created with an uploaded extension runs its content
 * script on a local http page (read over CDP with Playwright); `browsers.loadExtensions` puts a
 * second one into the running session (Chromium restarts; a newly loaded page shows both); a
 * crash restart keeps both; malformed uploads into a session are Error objects and leave it
 * running; a headful (Xvfb) session loads an extension selected by id; a pool with an
 * extension reports its id and hands out browsers that load it.
 */
import fsp from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { toFile } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { expectApiError } from '../org/org-fixtures.js';
import { markerExtension, zipOf } from './extension-zips.js';

let t: TestEngine;
let pages: LocalServer;

beforeAll(async () => {
  pages = await startLocalServer({ '/page': '<!doctype html><title>ext test</title><p>hello</p>' });
  t = await startTestEngine({ maxConcurrentSessions: 4 });
});

afterAll(async () => {
  await t?.stop();
  await pages?.close();
});

/** Which markers' content scripts ran on a freshly loaded local page. */
async function markersOn(browser: Browser): Promise<string[]> {
  const context = browser.contexts()[0];
  const page = await context.newPage();
  try {
    await page.goto(`${pages.url}/page`);
    // Content scripts run at document_end; give them the page's own load to finish.
    await page.waitForLoadState('load');
    return await page.evaluate(() =>
      [...document.documentElement.attributes]
        .map((a) => a.name)
        .filter((n) => n.startsWith('data-ext-'))
        .map((n) => n.slice('data-ext-'.length))
        .sort(),
    );
  } finally {
    await page.close();
  }
}

async function sessionPid(id: string): Promise<number> {
  const row = await t.engine.context.db.selectFrom('browser_sessions').select('pid').where('id', '=', id).executeTakeFirstOrThrow();
  return row.pid!;
}

describe('extensions in sessions', () => {
  it('loads an uploaded extension at create, more into the running session, and keeps them across a crash', async () => {
    const ext = await t.client.extensions.upload({ file: await toFile(await markerExtension('alpha'), 'alpha.zip'), name: 'alpha' });
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300, extensions: [{ name: 'alpha' }] });
    let browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      expect(await markersOn(browser)).toEqual(['alpha']);
      expect((await t.client.extensions.get(ext.id)).last_used_at).not.toBeNull();
      const cmdline = (await fsp.readFile(`/proc/${await sessionPid(s.session_id)}/cmdline`, 'utf8')).split('\0');
      expect(cmdline.some((a) => a.startsWith('--load-extension='))).toBe(true);
      expect(cmdline.some((a) => a.startsWith('--disable-extensions-except='))).toBe(true);
      expect(cmdline).not.toContain('--disable-extensions');

      // A second extension (zipped inside a top folder) into the running session.
      const pidBefore = await sessionPid(s.session_id);
      await t.client.browsers.loadExtensions(s.session_id, {
        extensions: [{ name: 'beta', zip_file: await toFile(await markerExtension('beta', 'beta-folder'), 'beta.zip') }],
      });
      expect(await sessionPid(s.session_id)).not.toBe(pidBefore);
      await browser.close().catch(() => {});
      browser = await chromium.connectOverCDP(s.cdp_ws_url);
      expect(await markersOn(browser)).toEqual(['alpha', 'beta']);

      // A crash: the supervisor relaunches with the same extensions.
      const pid = await sessionPid(s.session_id);
      process.kill(-pid, 'SIGKILL');
      await expect.poll(async () => sessionPid(s.session_id).catch(() => pid), { timeout: 30_000, interval: 100 }).not.toBe(pid);
      await browser.close().catch(() => {});
      browser = await chromium.connectOverCDP(s.cdp_ws_url);
      expect(await markersOn(browser)).toEqual(['alpha', 'beta']);

      // Loading under an existing name replaces that extension.
      await t.client.browsers.loadExtensions(s.session_id, { extensions: [{ name: 'beta', zip_file: await toFile(await markerExtension('gamma'), 'g.zip') }] });
      await browser.close().catch(() => {});
      browser = await chromium.connectOverCDP(s.cdp_ws_url);
      expect(await markersOn(browser)).toEqual(['alpha', 'gamma']);
    } finally {
      await browser.close().catch(() => {});
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it('loads extensions selected by id into a headful (Xvfb) session', async () => {
    const ext = await t.client.extensions.upload({ file: await toFile(await markerExtension('headful'), 'h.zip') });
    const s = await t.client.browsers.create({ headless: false, timeout_seconds: 300, extensions: [{ id: ext.id }] });
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      expect(await markersOn(browser)).toEqual(['headful']);
    } finally {
      await browser.close().catch(() => {});
      await t.client.browsers.deleteByID(s.session_id);
    }
    // Deleting the extension afterwards does not matter to ended sessions; a new one cannot use it.
    await t.client.extensions.delete(ext.id);
    const gone = await expectApiError(t.client.browsers.create({ headless: true, extensions: [{ id: ext.id }] }), 404, new RegExp(ext.id));
    expect(gone.code).toBe('extension_not_found');
  });

  it('refuses bad uploads into a session with Error objects and keeps it running', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    try {
      const good = await markerExtension('x');
      await expectApiError(t.client.browsers.loadExtensions(s.session_id, { extensions: [{ name: '../escape', zip_file: await toFile(good, 'x.zip') }] }), 400);
      await expectApiError(t.client.browsers.loadExtensions(s.session_id, { extensions: [{ name: 'a/b', zip_file: await toFile(good, 'x.zip') }] }), 400);
      await expectApiError(
        t.client.browsers.loadExtensions(s.session_id, { extensions: [{ name: 'junk', zip_file: await toFile(Buffer.from('not a zip'), 'x.zip') }] }),
        400,
      );
      await expectApiError(
        t.client.browsers.loadExtensions(s.session_id, { extensions: [{ name: 'nomanifest', zip_file: await toFile(await zipOf({ 'a.js': '' }), 'x.zip') }] }),
        422,
      );
      await expectApiError(t.client.browsers.loadExtensions(s.session_id, { extensions: [] }), 400);
      await expectApiError(t.client.browsers.loadExtensions('no-such-session', { extensions: [{ name: 'x', zip_file: await toFile(good, 'x.zip') }] }), 404);
      const form = new FormData();
      form.append('extensions[0][name]', 'only-a-name');
      expect((await t.api(`/browsers/${s.session_id}/extensions`, { method: 'POST', body: form })).status).toBe(400);
      // Still the same browser, with no extension loaded.
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        expect(await markersOn(browser)).toEqual([]);
      } finally {
        await browser.close().catch(() => {});
      }
      expect((await t.client.browsers.retrieve(s.session_id)).deleted_at).toBeUndefined();
    } finally {
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it('launches pooled browsers with the pool extensions and reports their ids', async () => {
    const ext = await t.client.extensions.upload({ file: await toFile(await markerExtension('pooled'), 'p.zip'), name: 'pooled' });
    await expectApiError(t.client.browserPools.create({ size: 1, headless: true, extensions: [{ name: 'missing-ext' }] }), 404);
    const pool = await t.client.browserPools.create({
      name: 'ext-pool',
      size: 1,
      headless: true,
      fill_rate_per_minute: 100,
      timeout_seconds: 120,
      extensions: [{ name: 'pooled' }],
    });
    expect(pool.extension_ids).toEqual([ext.id]);
    expect((await t.client.browserPools.retrieve('ext-pool')).extension_ids).toEqual([ext.id]);
    try {
      const s = await t.client.browserPools.acquire('ext-pool', { acquire_timeout_seconds: 60 });
      expect(s).toBeTruthy();
      const browser = await chromium.connectOverCDP(s!.cdp_ws_url);
      try {
        expect(await markersOn(browser)).toEqual(['pooled']);
      } finally {
        await browser.close().catch(() => {});
      }
      await t.client.browserPools.release('ext-pool', { session_id: s!.session_id, reuse: false });
      // Clearing the list: the pool reports none.
      expect((await t.client.browserPools.update('ext-pool', { size: 1, extensions: [] })).extension_ids).toEqual([]);
    } finally {
      await t.client.browserPools.delete('ext-pool', { force: true });
    }
  });
});
