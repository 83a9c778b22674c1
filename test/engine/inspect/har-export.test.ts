/**
 * HAR export (issue 17 item 3): a session with network telemetry loads a known page (its
 * document, a stylesheet, a missing image, a script through a 302 → 301 chain, an image on a
 * port nothing listens on, a POST with a body, and two slow answers) in real Chromium;
 * `GET /browsers/{id}/har` is valid HAR 1.2 (checked against the spec's required fields), lists
 * exactly those URLs with their statuses (one entry per redirect hop, a failure as status 0 with
 * `_error`), has Chromium's phase timings adding up to `time`, carries request bodies only when
 * asked and cut at `max_body_bytes`, downloads as a file, and is 404 to another project's key.
 * Response bodies: kept only for a session with `telemetry.browser.network.bodies` (at create or
 * PATCH) — text, base64 binary, cut with a comment, a huge one sized but not kept — and released
 * when the session ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { Har12 } from './har-schema.js';

/** A server-side pause the phases around it must at least contain (a lower bound the server guarantees). */
const PAUSE_MS = 300;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const BIG = 'a'.repeat(200_000);
const HUGE = 5 * 1024 * 1024;
const MIB = 1024 * 1024;
const BLOBS = 24;
/** More 1 MiB responses, one after another, than a session's 16 MiB body budget holds. */
const BLOBS_PAGE = `<!doctype html><title>blobs</title><script>(async () => {
for (let i = 0; i < ${BLOBS}; i++) await (await fetch('/blob/' + i)).arrayBuffer();
document.title = 'done';
})();</script>`;

let te: TestEngine;
let site: LocalServer;
let deadUrl: string;

const page = () => `<!doctype html><html><head><title>har page</title><link rel="stylesheet" href="/style.css">
<script src="/old.js"></script></head><body><img src="/missing.png"><img src="${deadUrl}/gone.png">
<script>fetch('/api/save?x=1', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'payload-' + 'y'.repeat(100) });
fetch('/slow-head'); fetch('/slow-body');</script>
</body></html>`;
const BODIES_PAGE = `<!doctype html><html><head><title>bodies</title><link rel="stylesheet" href="/style.css"></head>
<body><img src="/pixel.png"><script>fetch('/big.txt'); fetch('/huge.bin');</script></body></html>`;

beforeAll(async () => {
  te = await startTestEngine();
  const closed = await startLocalServer({});
  deadUrl = closed.url;
  await closed.close();
  site = await startLocalServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (p === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page());
    if (p === '/bodies') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BODIES_PAGE);
    if (p === '/style.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body{color:red}');
    if (p === '/old.js') return void res.writeHead(302, { location: '/mid.js' }).end();
    if (p === '/mid.js') return void res.writeHead(301, { location: '/new.js' }).end();
    if (p === '/new.js') return void res.writeHead(200, { 'content-type': 'application/javascript' }).end('window.x=1');
    if (p === '/api/save') return void req.resume().on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}'));
    if (p === '/slow-head') return void setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late head'), PAUSE_MS);
    if (p === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first half ');
      return void setTimeout(() => res.end('second half'), PAUSE_MS);
    }
    if (p === '/pixel.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (p === '/big.txt' || p === '/late.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(p === '/big.txt' ? BIG : 'late body');
    if (p.startsWith('/blob/')) return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(MIB, p.length));
    if (p === '/blobs') return void res.writeHead(200, { 'content-type': 'text/html' }).end(BLOBS_PAGE);
    if (p === '/huge.bin') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(HUGE, 7));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
}, 60_000);

afterAll(async () => {
  await te?.stop();
  await site?.close();
});

type Timings = { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
type Entry = {
  time: number;
  timings: Timings;
  request: { method: string; url: string; postData?: { text: string } };
  response: {
    status: number;
    redirectURL: string;
    _error?: string;
    _transferSize?: number;
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
  };
};
type Har = { log: { comment?: string; entries: Entry[] } };

const u = (p: string) => `${site.url}${p}`;
const getHar = async (id: string, q = '') => {
  const res = await te.api(`/browsers/${id}/har${q}`);
  expect(res.status).toBe(200);
  return { res, har: (await res.json()) as Har };
};
const entry = (har: Har, p: string) => har.log.entries.find((e) => e.request.url === u(p));

describe('GET /browsers/{id}/har', () => {
  it('is valid HAR 1.2 with the URLs, statuses, redirect hops and timings of a known page load', async () => {
    const s = await te.client.browsers.create({
      headless: true,
      timeout_seconds: 300,
      start_url: `${site.url}/`,
      telemetry: { browser: { network: { enabled: true }, page: { enabled: true } } },
    });
    const { har } = await pollUntil(
      'the page load in the HAR',
      () => getHar(s.session_id),
      ({ har: h }) =>
        entry(h, '/api/save?x=1')?.response.status === 201 &&
        h.log.entries.some((e) => e.request.url === `${deadUrl}/gone.png` && e.response._error) &&
        entry(h, '/slow-body')?.response._transferSize !== undefined &&
        entry(h, '/slow-head')?.response.status === 200,
    );
    expect(Value.Errors(Har12, har).First()).toBeUndefined();
    const seen = har.log.entries.map((e) => `${e.request.method} ${e.request.url} ${e.response.status}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        `GET ${u('/')} 200`,
        `GET ${u('/style.css')} 200`,
        `GET ${u('/missing.png')} 404`,
        `GET ${u('/old.js')} 302`,
        `GET ${u('/mid.js')} 301`,
        `GET ${u('/new.js')} 200`,
        `GET ${deadUrl}/gone.png 0`,
        `POST ${u('/api/save?x=1')} 201`,
      ]),
    );
    // One entry per hop, each pointing at the next.
    expect(har.log.entries.filter((e) => e.request.url.endsWith('.js')).map((e) => [e.request.url, e.response.redirectURL])).toEqual([
      [u('/old.js'), u('/mid.js')],
      [u('/mid.js'), u('/new.js')],
      [u('/new.js'), ''],
    ]);
    expect(har.log.entries.find((e) => e.request.url === `${deadUrl}/gone.png`)?.response._error).toContain('ERR_CONNECTION_REFUSED');

    // Timings: Chromium's phases, adding up to `time` (ssl is inside connect).
    for (const e of har.log.entries) {
      const { ssl: _ssl, ...counted } = e.timings;
      expect(e.time).toBeCloseTo(
        Object.values(counted).reduce((sum, v) => sum + Math.max(0, v), 0),
        2,
      );
    }
    expect(har.log.entries.some((e) => e.timings.connect >= 0 && e.timings.send >= 0)).toBe(true);
    // The server held the headers back: that is waiting (Chromium sent the request before the
    // server's pause began, so wait holds all of it). It held the body's end back: that is in
    // receiving — only wait + receive is bounded by the pause, since Chromium may take the
    // headers in late on a loaded machine, which moves part of the pause into wait.
    expect(entry(har, '/slow-head')!.timings.wait).toBeGreaterThanOrEqual(PAUSE_MS);
    const slowBody = entry(har, '/slow-body')!.timings;
    expect(slowBody.wait + slowBody.receive).toBeGreaterThanOrEqual(PAUSE_MS);
    expect(slowBody.receive).toBeGreaterThan(0);
    expect(entry(har, '/slow-body')!.response.content.size).toBe('first half second half'.length);

    // No bodies unless asked.
    expect(har.log.entries.some((e) => e.request.postData || e.response.content.text !== undefined)).toBe(false);
    const { res, har: withBodies } = await getHar(s.session_id, '?bodies=true&max_body_bytes=12');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${s.session_id}.har"`);
    expect(Value.Check(Har12, withBodies)).toBe(true);
    expect(entry(withBodies, '/api/save?x=1')?.request.postData?.text).toBe('payload-yyyy');
    // This session did not ask to keep response bodies: none, and the document says why.
    expect(withBodies.log.entries.some((e) => e.response.content.text !== undefined)).toBe(false);
    expect(withBodies.log.comment).toMatch(/network\.bodies/);
  }, 300_000);

  it('keeps response bodies for a session that asks: text, base64 binary, cut with a comment, huge ones sized only; released at the end', async () => {
    const created = await te.api('/browsers', {
      method: 'POST',
      json: { headless: true, timeout_seconds: 300, start_url: u('/bodies'), telemetry: { browser: { network: { enabled: true, bodies: true } } } },
    });
    expect(created.status).toBe(200);
    const s = (await created.json()) as { session_id: string; telemetry: { browser: { network: { enabled: boolean; bodies?: boolean } } } };
    expect(s.telemetry.browser.network).toEqual({ enabled: true, bodies: true });
    const { har } = await pollUntil(
      'the bodies in the HAR',
      () => getHar(s.session_id, '?bodies=true&max_body_bytes=1000'),
      ({ har: h }) => entry(h, '/big.txt')?.response.content.text !== undefined && entry(h, '/huge.bin')?.response.content.comment !== undefined,
    );
    expect(Value.Errors(Har12, har).First()).toBeUndefined();
    expect(har.log.comment).toBeUndefined();
    expect(entry(har, '/style.css')!.response.content).toEqual({ size: 15, mimeType: 'text/css', text: 'body{color:red}' });
    expect(entry(har, '/bodies')!.response.content.text).toContain('<title>bodies</title>');
    const png = entry(har, '/pixel.png')!.response.content;
    expect(png).toMatchObject({ size: PNG.length, encoding: 'base64' });
    expect(Buffer.from(png.text!, 'base64').equals(PNG)).toBe(true);
    expect(entry(har, '/big.txt')!.response.content).toMatchObject({
      size: BIG.length,
      text: BIG.slice(0, 1000),
      comment: `body cut at 1000 of ${BIG.length} bytes`,
    });
    expect(entry(har, '/huge.bin')!.response.content).toMatchObject({ size: HUGE, comment: expect.stringMatching(/not kept: larger than/) });
    expect(entry(har, '/huge.bin')!.response.content.text).toBeUndefined();

    // Ended: the requests stay (retained telemetry), the bodies are gone.
    await te.client.browsers.deleteByID(s.session_id);
    const { har: ended } = await getHar(s.session_id, '?bodies=true');
    expect(entry(ended, '/big.txt')?.response.status).toBe(200);
    expect(ended.log.entries.some((e) => e.response.content.text !== undefined)).toBe(false);
    expect(ended.log.comment).toMatch(/released when the session ended/);
  }, 300_000);

  it('keeps at most 16 MiB of bodies per session: the oldest are dropped for newer ones', async () => {
    const created = await te.api('/browsers', {
      method: 'POST',
      json: { headless: true, timeout_seconds: 300, start_url: u('/blobs'), telemetry: { browser: { network: { enabled: true, bodies: true } } } },
    });
    const s = (await created.json()) as { session_id: string };
    const last = u(`/blob/${BLOBS - 1}`);
    const { har } = await pollUntil(
      'the last blob settled (kept or not)',
      () => getHar(s.session_id, '?bodies=true&max_body_bytes=1'),
      ({ har: h }) => h.log.entries.some((e) => e.request.url === last && (e.response.content.text ?? e.response.content.comment) !== undefined),
    );
    const blobs = har.log.entries.filter((e) => e.request.url.includes('/blob/'));
    expect(blobs).toHaveLength(BLOBS);
    const kept = blobs.filter((e) => e.response.content.text !== undefined);
    expect(kept.length).toBeLessThanOrEqual(16);
    // Each blob's bytes are its path's length: the newest is kept.
    expect(blobs.at(-1)!.response.content.text).toBe(Buffer.from([`/blob/${BLOBS - 1}`.length]).toString('base64'));
    expect(blobs[0].response.content).toMatchObject({ size: MIB, comment: expect.stringMatching(/dropped for newer ones/) });
    expect(blobs[0].response.content.text).toBeUndefined();
    await te.client.browsers.deleteByID(s.session_id);
  }, 300_000);

  it('a PATCH turns body keeping on for later responses, and saving categories keeps it', async () => {
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300, telemetry: { browser: { network: { enabled: true } } } });
    const patch = (body: unknown) => te.api(`/browsers/${s.session_id}`, { method: 'PATCH', json: body });
    expect((await patch({ telemetry: { browser: { network: { enabled: true, bodies: true } } } })).status).toBe(200);
    // What the console's category settings send: `enabled` only; `bodies` stays.
    expect((await patch({ telemetry: { enabled: true, browser: { network: { enabled: true }, page: { enabled: true } } } })).status).toBe(200);
    const now = (await (await te.api(`/browsers/${s.session_id}`)).json()) as { telemetry: { browser: { network: unknown } } };
    expect(now.telemetry.browser.network).toEqual({ enabled: true, bodies: true });
    expect((await patch({ start_url: u('/late.txt') })).status).toBe(200);
    const { har } = await pollUntil(
      'the late body',
      () => getHar(s.session_id, '?bodies=true'),
      ({ har: h }) => entry(h, '/late.txt')?.response.content.text !== undefined,
    );
    expect(entry(har, '/late.txt')!.response.content).toMatchObject({ size: 9, text: 'late body' });
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
    // A bodies switch that is no boolean is a 400 too.
    const badSwitch = await te.api(`/browsers/${s.session_id}`, { method: 'PATCH', json: { telemetry: { browser: { network: { bodies: 'yes' } } } } });
    expect(badSwitch.status).toBe(400);
    // Without network telemetry the document is empty and says why.
    const empty = (await (await te.api(`/browsers/${s.session_id}/har`)).json()) as Har;
    expect(empty.log.entries).toEqual([]);
    expect(empty.log.comment).toMatch(/network telemetry is off/);
  }, 300_000);
});
