/**
 * Extensions with two engine nodes on one PostgreSQL database: `loadExtensions` sent to node B
 * for a session on node A is forwarded (multipart body included) and A's browser loads it; an
 * extension uploaded through B lives in B's data dir, so A (which does not share it here)
 * answers a 503 naming the problem for a session or a download — never a 500 or a broken launch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { toFile } from '@onkernel/sdk';
import { PG_SKIP_REASON, PG_URL, joinNode, startTestEngine, type TestEngine } from '../multi-node/two-nodes.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { expectApiError } from '../org/org-fixtures.js';
import { markerExtension } from './extension-zips.js';

let a: TestEngine;
let b: TestEngine;
let pages: LocalServer;

describe.skipIf(!PG_URL)(`extensions across two nodes${PG_SKIP_REASON}`, () => {
  beforeAll(async () => {
    pages = await startLocalServer({ '/page': '<!doctype html><title>x</title>' });
    a = await startTestEngine();
    b = await joinNode(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await pages?.close();
  });

  it('loads an extension into a session on A through B', async () => {
    const s = await a.client.browsers.create({ headless: true, timeout_seconds: 300 });
    try {
      await b.client.browsers.loadExtensions(s.session_id, { extensions: [{ name: 'via-b', zip_file: await toFile(await markerExtension('viab'), 'v.zip') }] });
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        const page = await browser.contexts()[0].newPage();
        await page.goto(`${pages.url}/page`);
        await expect.poll(() => page.evaluate(() => document.documentElement.getAttribute('data-ext-viab'))).toBe('1');
      } finally {
        await browser.close().catch(() => {});
      }
    } finally {
      await a.client.browsers.deleteByID(s.session_id);
    }
  });

  it('answers 503 on a node that does not hold the archive', async () => {
    const ext = await b.client.extensions.upload({ file: await toFile(await markerExtension('onb'), 'b.zip'), name: 'on-b' });
    // The metadata is shared (one database) ...
    expect((await a.client.extensions.get('on-b')).id).toBe(ext.id);
    // ... the bytes are not: a clear 503 on A, before any session row exists.
    const rowsBefore = (await a.client.browsers.list({ status: 'all' })).items.length;
    const err = await expectApiError(a.client.browsers.create({ headless: true, extensions: [{ name: 'on-b' }] }), 503, /shared storage/);
    expect(err.code).toBe('extension_archive_unavailable');
    await expectApiError(a.client.extensions.download('on-b'), 503);
    expect((await a.client.browsers.list({ status: 'all' })).items.length).toBe(rowsBefore);
    await b.client.extensions.delete('on-b');
  });
});
