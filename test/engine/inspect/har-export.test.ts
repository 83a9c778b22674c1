/**
 * HAR export (issue 17 item 3): a session with network telemetry loads a known page (its
 * document, a stylesheet, a missing image, a redirected script and a POST with a body) in real
 * Chromium; `GET /browsers/{id}/har` is valid HAR 1.2 (checked against the spec's required
 * fields), lists exactly those URLs with their statuses, carries request bodies only when asked
 * and cut at `max_body_bytes`, downloads as a file, and is 404 to another project's key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { Har12 } from './har-schema.js';

const PAGE = `<!doctype html><html><head><title>har page</title><link rel="stylesheet" href="/style.css">
<script src="/old.js"></script></head><body><img src="/missing.png">
<script>fetch('/api/save?x=1', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'payload-' + 'y'.repeat(100) });</script>
</body></html>`;

let te: TestEngine;
let site: LocalServer;

beforeAll(async () => {
  te = await startTestEngine();
  site = await startLocalServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (p === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (p === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{color:red}');
    if (p === '/old.js') return void res.writeHead(302, { location: '/new.js' }).end();
    if (p === '/new.js') return void res.writeHead(200, { 'content-type': 'application/javascript' }).end('window.x=1');
    if (p === '/api/save') return void req.resume().on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}'));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
}, 60_000);

afterAll(async () => {
  await te?.stop();
  await site?.close();
});

type Har = {
  log: { entries: Array<{ request: { method: string; url: string; postData?: { text: string } }; response: { status: number; redirectURL: string } }> };
};

describe('GET /browsers/{id}/har', () => {
  it('is valid HAR 1.2 with the URLs and statuses of a known page load', async () => {
    const s = await te.client.browsers.create({
      headless: true,
      timeout_seconds: 300,
      start_url: `${site.url}/`,
      telemetry: { browser: { network: { enabled: true }, page: { enabled: true } } },
    });
    const u = (p: string) => `${site.url}${p}`;
    const get = async (q = '') => {
      const res = await te.api(`/browsers/${s.session_id}/har${q}`);
      expect(res.status).toBe(200);
      return { res, har: (await res.json()) as Har };
    };
    const { har } = await pollUntil(
      'the page load in the HAR',
      () => get(),
      ({ har: h }) => h.log.entries.some((e) => e.request.url === u('/api/save?x=1') && e.response.status === 201),
    );
    expect(Value.Errors(Har12, har).First()).toBeUndefined();
    const seen = har.log.entries.map((e) => `${e.request.method} ${e.request.url} ${e.response.status}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        `GET ${u('/')} 200`,
        `GET ${u('/style.css')} 200`,
        `GET ${u('/missing.png')} 404`,
        `GET ${u('/new.js')} 200`,
        `POST ${u('/api/save?x=1')} 201`,
      ]),
    );
    expect(har.log.entries.find((e) => e.request.url === u('/old.js'))?.response.redirectURL).toBe(u('/new.js'));
    // No bodies unless asked.
    expect(har.log.entries.some((e) => e.request.postData)).toBe(false);

    const { res, har: withBodies } = await get('?bodies=true&max_body_bytes=12');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${s.session_id}.har"`);
    expect(Value.Check(Har12, withBodies)).toBe(true);
    expect(withBodies.log.entries.find((e) => e.request.url === u('/api/save?x=1'))?.request.postData?.text).toBe('payload-yyyy');
  }, 300_000);

  it('is 404 for another project’s key and 400 for a bad cap', async () => {
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
    const project = await te.client.projects.create({ name: 'har-other' });
    const key = (await te.client.apiKeys.create({ name: 'har-other-key', project_id: project.id })).key!;
    const other = await fetch(`${te.url}/browsers/${s.session_id}/har`, { headers: { authorization: `Bearer ${key}` } });
    expect(other.status).toBe(404);
    const bad = await te.api(`/browsers/${s.session_id}/har?max_body_bytes=-1`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBeTruthy();
    // Without network telemetry the document is empty and says why.
    const empty = (await (await te.api(`/browsers/${s.session_id}/har`)).json()) as Har & { log: { comment?: string } };
    expect(empty.log.entries).toEqual([]);
    expect(empty.log.comment).toMatch(/network telemetry is off/);
  }, 300_000);
});
