/**
 * Issue 25 row 2 across the whole API: no answer of the engine can run on its origin, where the
 * operator's console lives. Every GET route of the engine's own /openapi.json (a new route too,
 * with no list to update) is requested with a real session's id, and each answer — a file, a
 * zip, a HAR, a target's page, a stream, an error — carries `Content-Security-Policy: sandbox`
 * and `X-Content-Type-Options: nosniff`. The routes that opt out (`enginePage`, the engine's own
 * pages with their own CSP) are a fixed list here: a new one is a reviewed change of this file.
 * And the session's own files come back as downloads of a type the engine chose, a target's
 * answer through `/curl/raw` without the headers that act on the origin.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const EVIL = '<!doctype html><script>parent.postMessage(document.cookie, "*")</script><h1>tenant</h1>';

let t: TestEngine;
let site: LocalServer;
let id: string;
let jwt: string;
let uiDir: string;

beforeAll(async () => {
  site = await startLocalServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/html',
      'set-cookie': 'planted=1; Path=/',
      link: '</evil.css>; rel=preload; as=style',
      refresh: '0; url=https://example.invalid/',
      'clear-site-data': '"*"',
      'service-worker-allowed': '/',
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
      'strict-transport-security': 'max-age=31536000',
      'content-security-policy': "script-src 'unsafe-inline'",
      'x-accel-redirect': '/internal/secret',
      'x-multi': 'kept',
    });
    res.end(EVIL);
  });
  // A stand-in console build: the engine's own page must stay a page that runs its scripts.
  uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-ui-'));
  fs.mkdirSync(path.join(uiDir, 'assets'));
  fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
  fs.writeFileSync(path.join(uiDir, 'assets', 'app.js'), 'document.title = "console";');
  t = await startTestEngine({ uiDir });
  const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
  id = s.session_id;
  jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
  const put = await t.api(`/browsers/${id}/fs/write_file?path=/tmp/evil.html`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: EVIL,
  });
  expect(put.ok).toBe(true);
}, 120_000);
afterAll(async () => {
  if (id) await t?.client.browsers.deleteByID(id).catch(() => {});
  await t?.stop();
  await site?.close();
  if (uiDir) fs.rmSync(uiDir, { recursive: true, force: true });
});

/** The engine pages that are in /openapi.json (the others are hidden routes). */
const DOCUMENTED_PAGES = ['/browsers/{id}/live', '/browsers/{id}/replays/{replay_id}/view'];

function expectSandboxed(res: Response, what: string): void {
  expect(res.headers.get('content-security-policy'), what).toBe('sandbox');
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('set-cookie'), what).toBeNull();
}

describe('tenant bytes never run on the engine origin', () => {
  it('every documented GET answers with CSP sandbox and nosniff', async () => {
    const doc = (await (await t.api('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const gets = Object.entries(doc.paths).filter(([, ops]) => 'get' in ops);
    expect(gets.length).toBeGreaterThan(50);
    // Query parameters a tenant-bytes route needs to answer 200 (others ignore or refuse them: still an answer).
    const query = `?path=${encodeURIComponent('/tmp/evil.html')}&url=${encodeURIComponent(`${site.url}/page`)}&follow=false`;
    for (const [p] of gets) {
      const url = p.replace('{id}', id).replace(/\{[^}]+\}/g, 'x') + query;
      // Not followed: a redirect (to the trace viewer, the DevTools frontend) is this route's answer.
      const res = await t.api(url, { redirect: 'manual', signal: AbortSignal.timeout(20_000) });
      const what = `GET ${url} → ${res.status}`;
      // A documented engine page (below) answers its own CSP when it answers its page.
      if (DOCUMENTED_PAGES.includes(p) && res.ok) {
        expect(res.headers.get('content-security-policy'), what).toMatch(/default-src 'none'/);
        expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      } else expectSandboxed(res, what);
      await res.body?.cancel();
    }
  });

  it('the routes that opt out are the engine own pages only', () => {
    // Every `enginePage: true` in the engine's sources, by file.
    const out = execFileSync('grep', ['-rc', '--include=*.ts', '--exclude=*.test.ts', 'enginePage: true', 'src/engine'], { cwd: ROOT, encoding: 'utf8' });
    const found = Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((l) => l.split(':') as [string, string])
        // The file that defines the flag names it in its comment.
        .filter(([f, n]) => n !== '0' && f !== 'src/engine/http/tenant-bytes.ts')
        .map(([f, n]) => [f, Number(n)]),
    );
    expect(found).toEqual({
      // The console (index.html and its bundle).
      'src/engine/http/serve-ui.ts': 1,
      // The live view page (the screen comes as images over its WebSocket).
      'src/engine/api/live-view.ts': 1,
      // Chromium's DevTools frontend, confined to its token path by its own CSP and COOP.
      'src/engine/api/session-devtools.ts': 1,
      // Playwright's trace viewer, likewise; the trace itself is sent as a sandboxed file.
      'src/engine/api/session-trace.ts': 1,
      // The replay player page (the MP4 is a media file, not a page).
      'src/engine/api/session-replays.ts': 1,
      // The hosted login page: escaped text, no script.
      'src/engine/api/auth-connections-hosted.ts': 1,
    });
  });

  it('the console itself is not sandboxed', async () => {
    for (const p of ['/', '/assets/app.js']) {
      const res = await fetch(t.url + p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-security-policy'), p).toBeNull();
      expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
    }
  });

  it("a session's file is a download of a type the engine chose", async () => {
    const file = await t.api(`/browsers/${id}/fs/read_file?path=/tmp/evil.html`);
    expect(file.status).toBe(200);
    expectSandboxed(file, 'read_file');
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="evil.html"/);
    expect(await file.text()).toBe(EVIL);

    const zip = await t.api(`/browsers/${id}/fs/download_dir_zip?path=/tmp`);
    expect(zip.status).toBe(200);
    expectSandboxed(zip, 'download_dir_zip');
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('content-disposition')).toMatch(/^attachment; filename="tmp.zip"/);
    await zip.body?.cancel();

    // The trace viewer is an engine page; the file it opens (any file of the session) is not.
    const link = (await (await t.api(`/browsers/${id}/trace?path=/tmp/evil.html&format=json`)).json()) as { url: string };
    const trace = await fetch(new URL(link.url).searchParams.get('trace')!);
    expect(trace.status).toBe(200);
    expectSandboxed(trace, 'trace.zip');
    expect(trace.headers.get('content-type')).toBe('application/zip');
    expect(trace.headers.get('content-disposition')).toMatch(/^attachment;/);
    await trace.body?.cancel();
  });

  it("a target's answer through /curl/raw keeps its body and type, none of the headers that act on the origin", async () => {
    const res = await fetch(`${t.url}/browsers/${id}/curl/raw?url=${encodeURIComponent(`${site.url}/page`)}&jwt=${encodeURIComponent(jwt)}`);
    expect(res.status).toBe(200);
    expectSandboxed(res, 'curl/raw');
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.headers.get('x-multi')).toBe('kept');
    for (const h of [
      'link',
      'refresh',
      'clear-site-data',
      'service-worker-allowed',
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'strict-transport-security',
      'x-accel-redirect',
    ])
      expect(res.headers.get(h), h).toBeNull();
    expect(await res.text()).toBe(EVIL);
  });
});
