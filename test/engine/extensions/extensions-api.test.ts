/**
 * `/extensions` through the official client: upload (with and without name), list with name /
 * query filters and offset pagination, metadata with the sha256 of the uploaded bytes, download
 * equal to the upload, delete, name conflicts, malformed uploads (not a zip, no manifest, bad
 * names, wrong fields) as Error objects, and project/org isolation. `from_chrome_store` is
 * exercised against a local fake update server (CRX3 → zip), a closed port (502) and a server
 * that never answers (504 after the configured timeout, no hang).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { createOtherOrg, expectApiError, expectErrorResponse } from '../org/org-fixtures.js';
import { crx3, markerExtension, sha256, zipOf } from './extension-zips.js';

const STORE_ID = 'abcdefghijklmnopabcdefghijklmnop';

let t: TestEngine;
let store: LocalServer;
let silent: LocalServer;
let storeZip: Buffer;
const storeRequests: URL[] = [];

beforeAll(async () => {
  storeZip = await markerExtension('store');
  store = await startLocalServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    storeRequests.push(u);
    // The real service redirects to the package; follow the same shape.
    if (u.pathname === '/crx') {
      const id = /id=([a-p]{32})/.exec(u.searchParams.get('x') ?? '')?.[1];
      if (id === STORE_ID) return void res.writeHead(302, { location: `/pkg/${id}.crx` }).end();
      return void res.writeHead(204).end();
    }
    if (u.pathname === `/pkg/${STORE_ID}.crx`) return void res.writeHead(200, { 'content-type': 'application/x-chrome-extension' }).end(crx3(storeZip));
    res.writeHead(500).end();
  });
  // Accepts connections and never answers.
  silent = await startLocalServer(() => {});
  t = await startTestEngine({ chromeStoreUrl: `${store.url}/crx`, chromeStoreTimeoutMs: 1500 });
});

afterAll(async () => {
  await t?.stop();
  await store?.close();
  await silent?.close();
});

describe('/extensions', () => {
  it('uploads, lists, filters, paginates, reports metadata, downloads and deletes', async () => {
    const zipA = await markerExtension('a');
    const zipB = await markerExtension('b', 'ext-b');
    const a = await t.client.extensions.upload({ file: await toFile(zipA, 'a.zip'), name: 'ext-alpha' });
    expect(a).toMatchObject({ name: 'ext-alpha', size_bytes: zipA.length, checksum: sha256(zipA), last_used_at: null });
    expect(a.id).toMatch(/^[a-z0-9]+$/);
    const b = await t.client.extensions.upload({ file: await toFile(zipB, 'b.zip') });
    expect(b).toMatchObject({ name: null, size_bytes: zipB.length, checksum: sha256(zipB) });
    const c = await t.client.extensions.upload({ file: await toFile(await markerExtension('c'), 'c.zip'), name: 'other-gamma' });

    // The zip sits on disk under <dataDir>/extensions/<id>.zip.
    expect(sha256(await fsp.readFile(path.join(t.dataDir, 'extensions', `${a.id}.zip`)))).toBe(sha256(zipA));

    const all = [];
    for await (const e of t.client.extensions.list({ limit: 2 })) all.push(e.id);
    expect(all).toEqual([a.id, b.id, c.id]);
    const page = await t.client.extensions.list({ limit: 2 });
    expect(page.items.map((e) => e.id)).toEqual([a.id, b.id]);
    expect(page.has_more).toBe(true);
    expect((await t.client.extensions.list({ name: 'ext-alpha' })).items.map((e) => e.id)).toEqual([a.id]);
    expect((await t.client.extensions.list({ query: 'GAMMA' })).items.map((e) => e.id)).toEqual([c.id]);
    expect((await t.client.extensions.list({ query: b.id })).items.map((e) => e.id)).toEqual([b.id]);

    expect(await t.client.extensions.get('ext-alpha')).toEqual(a);
    expect((await t.client.extensions.get(b.id)).checksum).toBe(sha256(zipB));

    const dl = await t.client.extensions.download('ext-alpha');
    expect(dl.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await dl.arrayBuffer()).equals(zipA)).toBe(true);
    const dlB = await t.client.extensions.download(b.id);
    expect(Buffer.from(await dlB.arrayBuffer()).equals(zipB)).toBe(true);

    await t.client.extensions.delete('ext-alpha');
    await expectApiError(t.client.extensions.get('ext-alpha'), 404);
    await expectApiError(t.client.extensions.download(a.id), 404);
    await expectApiError(t.client.extensions.delete(a.id), 404);
    await expect(fsp.stat(path.join(t.dataDir, 'extensions', `${a.id}.zip`))).rejects.toMatchObject({ code: 'ENOENT' });
    await t.client.extensions.delete(b.id);
    await t.client.extensions.delete(c.id);
    expect((await t.client.extensions.list()).items).toEqual([]);
  });

  it('refuses a taken name (409), bad names, non-zips and zips without a manifest', async () => {
    const zip = await markerExtension('n');
    const first = await t.client.extensions.upload({ file: await toFile(zip, 'n.zip'), name: 'dup-name' });
    const conflict = await expectApiError(t.client.extensions.upload({ file: await toFile(zip, 'n.zip'), name: 'dup-name' }), 409);
    expect(conflict.code).toBe('extension_name_taken');
    await expectApiError(t.client.extensions.upload({ file: await toFile(zip, 'n.zip'), name: '../evil' }), 400);
    await expectApiError(t.client.extensions.upload({ file: await toFile(zip, 'n.zip'), name: '..' }), 400);
    await expectApiError(t.client.extensions.upload({ file: await toFile(zip, 'n.zip'), name: 'from_chrome_store' }), 400, /reserved/);

    const notZip = await expectApiError(t.client.extensions.upload({ file: await toFile(Buffer.from('definitely not a zip'), 'x.zip') }), 400);
    expect(notZip.code).toBe('invalid_zip');
    await expectApiError(t.client.extensions.upload({ file: await toFile(Buffer.alloc(0), 'empty.zip') }), 400);
    const noManifest = await expectApiError(
      t.client.extensions.upload({ file: await toFile(await zipOf({ 'readme.txt': 'hi' }), 'x.zip') }),
      422,
      /manifest\.json/,
    );
    expect(noManifest.code).toBe('invalid_extension');
    // manifest.json two folders deep (or in one of two top folders) is not an unpacked extension either.
    await expectApiError(t.client.extensions.upload({ file: await toFile(await zipOf({ 'a/b/manifest.json': '{}' }), 'x.zip') }), 422);
    await expectApiError(t.client.extensions.upload({ file: await toFile(await zipOf({ 'a/manifest.json': '{}', 'b/x.js': '' }), 'x.zip') }), 422);

    // Wrong shapes of the form itself.
    const form = new FormData();
    form.append('other', new Blob([new Uint8Array(zip)]), 'x.zip');
    await expectErrorResponse(await t.api('/extensions', { method: 'POST', body: form }), 400);
    await expectErrorResponse(await t.api('/extensions', { method: 'POST', body: new FormData() }), 400);
    await expectErrorResponse(await t.api('/extensions', { method: 'POST', json: { file: 'x' } }), 415);

    // Nothing half-made is left: only the first upload exists, and no staging file lingers.
    expect((await t.client.extensions.list()).items.map((e) => e.id)).toEqual([first.id]);
    expect(await fsp.readdir(path.join(t.dataDir, 'extensions', '.uploads'))).toEqual([]);
    await t.client.extensions.delete(first.id);
  });

  it('keeps projects and orgs apart', async () => {
    const zip = await markerExtension('iso');
    const mine = await t.client.extensions.upload({ file: await toFile(zip, 'i.zip'), name: 'shared-name' });
    const p2 = await t.client.projects.create({ name: 'ext-other-project' });
    const other = t.clientWith({ projectID: p2.id });
    expect((await other.extensions.list()).items).toEqual([]);
    await expectApiError(other.extensions.get(mine.id), 404);
    await expectApiError(other.extensions.download('shared-name'), 404);
    await expectApiError(other.extensions.delete(mine.id), 404);
    // The same name is free in another project.
    const theirs = await other.extensions.upload({ file: await toFile(zip, 'i.zip'), name: 'shared-name' });
    expect(theirs.id).not.toBe(mine.id);
    // A project holding extensions is not empty.
    await expectApiError(t.client.projects.delete(p2.id), 409);
    await other.extensions.delete('shared-name');
    await t.client.projects.delete(p2.id);

    const org = await createOtherOrg(t, 'ext-org');
    expect((await org.client.extensions.list()).items).toEqual([]);
    await expectApiError(org.client.extensions.get(mine.id), 404);
    await expectApiError(org.client.extensions.get('shared-name'), 404);
    expect((await t.client.extensions.get('shared-name')).id).toBe(mine.id);
    await t.client.extensions.delete(mine.id);
  });

  it('fetches from the Chrome Web Store (CRX3 → zip) and answers clear errors when it cannot', async () => {
    const res = await t.client.extensions.downloadFromChromeStore({ url: `https://chromewebstore.google.com/detail/some-extension/${STORE_ID}`, os: 'mac' });
    expect(Buffer.from(await res.arrayBuffer()).equals(storeZip)).toBe(true);
    const asked = storeRequests.find((u) => u.pathname === '/crx');
    expect(asked?.searchParams.get('os')).toBe('mac');
    expect(asked?.searchParams.get('x')).toBe(`id=${STORE_ID}&uc`);

    // The store has no such extension.
    await expectApiError(t.client.extensions.downloadFromChromeStore({ url: `https://chromewebstore.google.com/detail/x/${'p'.repeat(32)}` }), 404);
    // Not a store URL / bad os.
    await expectApiError(t.client.extensions.downloadFromChromeStore({ url: 'https://example.com/nothing' }), 400);
    await expectApiError(t.client.extensions.downloadFromChromeStore({ url: 'not a url' }), 400);
    await expectErrorResponse(await t.api(`/extensions/from_chrome_store?url=${STORE_ID}&os=beos`), 400);
    await expectErrorResponse(await t.api('/extensions/from_chrome_store'), 400);

    // A closed port: unreachable → 502; a store that never answers → 504 after the timeout.
    const closed = await startLocalServer(() => {});
    const closedUrl = closed.url;
    await closed.close();
    const offline = await startTestEngine({ chromeStoreUrl: `${closedUrl}/crx`, chromeStoreTimeoutMs: 1500 });
    const hanging = await startTestEngine({ chromeStoreUrl: `${silent.url}/crx`, chromeStoreTimeoutMs: 500 });
    try {
      const e1 = await expectApiError(offline.client.extensions.downloadFromChromeStore({ url: STORE_ID }), 502);
      expect(e1.code).toBe('chrome_store_unreachable');
      const e2 = await expectApiError(hanging.client.extensions.downloadFromChromeStore({ url: STORE_ID }), 504);
      expect(e2.code).toBe('chrome_store_timeout');
    } finally {
      await offline.stop();
      await hanging.stop();
    }
  });

  it('answers a store package that is not a CRX with 502', async () => {
    const junk = await startLocalServer((_req, res) => void res.writeHead(200).end('<html>captive portal</html>'));
    const e = await startTestEngine({ chromeStoreUrl: `${junk.url}/crx` });
    try {
      const err = await expectApiError(e.client.extensions.downloadFromChromeStore({ url: STORE_ID }), 502);
      expect(err.code).toBe('chrome_store_bad_package');
    } finally {
      await e.stop();
      await junk.close();
    }
  });
});
