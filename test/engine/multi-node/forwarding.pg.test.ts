/**
 * Two engine nodes on one PostgreSQL database: a session created on node A is used through
 * node B with the official client — retrieve (by id and by name), list, PATCH, filesystem
 * write/read, process exec, screenshot, a logs SSE stream, Playwright over CDP through B's
 * address, the telemetry SSE stream, BiDi and live view frames — and DELETE through B really ends the browser on A. Each forwarded request is
 * audited once (by A), and a request already marked as forwarded is never forwarded again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { PG_SKIP_REASON, PG_URL, flushAudits, joinNode, nodeIdOf, startTestEngine, via, type TestEngine } from './two-nodes.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { pollUntil } from '../../helpers/poll-until.js';
import type { ReplayService } from '../../../src/engine/domain/replays/replay-service.js';

/** `p`, or an error naming the step when it takes longer than 20 s (the test's own timeout would name none). */
function step<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within 20 s`)), 20_000)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
let a: TestEngine;
let b: TestEngine;
let id: string;
let cdpUrl: string;

const sessionsOf = (t: TestEngine) => t.engine.services.sessions as SessionManager;
const text = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('utf8');

describe.skipIf(!PG_URL)(`a session created on node A, used through node B${PG_SKIP_REASON}`, () => {
  beforeAll(async () => {
    a = await startTestEngine();
    b = await joinNode(a);
    const s = await a.client.browsers.create({ headless: true, name: 'on-a', timeout_seconds: 300 });
    id = s.session_id;
    cdpUrl = s.cdp_ws_url;
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('runs on A only, and both nodes are registered with their own address', async () => {
    expect(nodeIdOf(a)).not.toBe(nodeIdOf(b));
    expect(sessionsOf(a).get(id)).toBeDefined();
    expect(sessionsOf(b).get(id)).toBeUndefined();
    const rows = await a.engine.context.db.selectFrom('engine_nodes').selectAll().execute();
    expect(new Map(rows.map((r) => [r.id, r.internal_url]))).toEqual(
      new Map([
        [nodeIdOf(a), a.url],
        [nodeIdOf(b), b.url],
      ]),
    );
  });

  it('retrieves by id and by name, and lists, through B', async () => {
    const got = await b.client.browsers.retrieve(id);
    expect(got).toMatchObject({ session_id: id, name: 'on-a' });
    expect((await b.client.browsers.retrieve('on-a')).session_id).toBe(id);
    const listed = [];
    for await (const s of b.client.browsers.list()) listed.push(s.session_id);
    expect(listed).toContain(id);
  });

  it('updates through B (PATCH lands in the shared row)', async () => {
    const updated = await b.client.browsers.update(id, { tags: { via: 'b' } });
    expect(updated.tags).toEqual({ via: 'b' });
    expect((await a.client.browsers.retrieve(id)).tags).toEqual({ via: 'b' });
  });

  it('writes and reads files, runs a process and takes a screenshot on A through B', async () => {
    await b.client.browsers.fs.writeFile(id, 'written through b', { path: '/notes/b.txt' });
    expect(await (await a.client.browsers.fs.readFile(id, { path: '/notes/b.txt' })).text()).toBe('written through b');
    expect(await (await b.client.browsers.fs.readFile(id, { path: '/notes/b.txt' })).text()).toBe('written through b');
    const r = await b.client.browsers.process.exec(id, { command: 'sh', args: ['-c', 'cat notes/b.txt; echo; exit 3'] });
    expect(r.exit_code).toBe(3);
    expect(text(r.stdout_b64)).toBe('written through b\n');
    const png = Buffer.from(await (await b.client.browsers.computer.captureScreenshot(id)).arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('streams a log file as SSE through B', async () => {
    await b.client.browsers.fs.writeFile(id, 'one\ntwo\nthree\n', { path: '/logs/app.log' });
    const got: string[] = [];
    for await (const e of await b.client.browsers.logs.stream(id, { source: 'path', path: '/logs/app.log', follow: false })) got.push(e.message);
    expect(got).toEqual(['one', 'two', 'three']);

    // follow=true: each append arrives while the stream stays open (nothing buffered on B).
    const ac = new AbortController();
    const live: string[] = [];
    const stream = await b.client.browsers.logs.stream(id, { source: 'path', path: '/logs/app.log' }, { signal: ac.signal });
    const reading = (async () => {
      try {
        for await (const e of stream) live.push(e.message);
      } catch {
        /* aborted */
      }
    })();
    await pollUntil(
      'the existing lines',
      async () => live.length,
      (n) => n >= 3,
    );
    for (const line of ['four', 'five']) {
      const r = await b.client.browsers.process.exec(id, { command: 'sh', args: ['-c', `echo ${line} >> logs/app.log`] });
      expect(r.exit_code).toBe(0);
      await pollUntil(
        `'${line}' streamed through B`,
        async () => live.slice(),
        (l) => l.includes(line),
      );
    }
    ac.abort();
    await step('the telemetry stream to end once aborted', reading);
    expect(live).toEqual(['one', 'two', 'three', 'four', 'five']);
  });

  it('drives the browser on A with Playwright over CDP through B', async () => {
    const browser = await chromium.connectOverCDP(via(b, cdpUrl));
    try {
      const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
      await page.goto('data:text/html,<title>through-b</title><p>hi</p>');
      expect(await page.title()).toBe('through-b');
    } finally {
      await browser.close();
    }
    // The page B navigated is the page A's browser shows.
    const direct = await chromium.connectOverCDP(cdpUrl);
    try {
      const titles = await Promise.all(
        direct
          .contexts()[0]
          .pages()
          .map((p) => p.title()),
      );
      expect(titles).toContain('through-b');
    } finally {
      await direct.close();
    }
    // Two upgrades (through B, then direct on A), two audit rows: B did not record the one it piped.
    const cdpRows = async () => {
      await flushAudits(a, b);
      return a.engine.context.db.selectFrom('audit_logs').select(['status', 'route']).where('route', '=', '/browsers/:id/cdp').execute();
    };
    await pollUntil('both upgrades audited', cdpRows, (rows) => rows.length >= 2);
    await new Promise((r) => setTimeout(r, 300)); // a third (duplicate) row would have been flushed by now
    expect(await cdpRows()).toEqual([
      { status: 101, route: '/browsers/:id/cdp' },
      { status: 101, route: '/browsers/:id/cdp' },
    ]);
  });

  it('serves the DevTools frontend (files and socket) and the trace viewer of a session on A at B’s address', async () => {
    // The links carry the address the caller used (B's); every file and the socket behind the token go to A.
    const targets = (await (await b.api(`/browsers/${id}/cdp/json/list`)).json()) as Array<{ id: string; type: string }>;
    const targetId = targets.find((t) => t.type === 'page')!.id;
    const link = (await (await b.api(`/browsers/${id}/devtools?target=${targetId}&mode=read&format=json`)).json()) as { url: string };
    expect(new URL(link.url).origin).toBe(new URL(b.url).origin);
    const html = await fetch(link.url);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toContain('/devtools-frontend/');
    const ws = new WebSocket(`ws://${new URL(link.url).searchParams.get('ws')}`);
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const answer = new Promise<{ id: number; result?: { root?: unknown } }>((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()))));
      ws.send(JSON.stringify({ id: 1, method: 'DOM.getDocument' }));
      expect((await answer).result?.root).toBeTruthy();
    } finally {
      ws.close();
    }
    await b.client.browsers.fs.writeFile(id, 'not really a zip', { path: '/tmp/traces/b.zip' });
    const trace = (await (await b.api(`/browsers/${id}/trace?path=/tmp/traces/b.zip&format=json`)).json()) as { url: string };
    const zip = await fetch(new URL(trace.url).searchParams.get('trace')!);
    expect(zip.status).toBe(200);
    expect(await zip.text()).toBe('not really a zip');
    // A forged token is not routed: B answers it itself.
    expect((await fetch(`${b.url}/devtools-frontend/x.y.z/inspector.html`)).status).toBe(401);
  });

  it('streams telemetry as SSE, answers BiDi and sends live view frames from A through B', async () => {
    await b.client.browsers.update(id, { telemetry: { browser: { console: { enabled: true } } } });
    const ac = new AbortController();
    const seen: string[] = [];
    const stream = await b.client.browsers.telemetry.stream(id, { replay: 'all' }, { signal: ac.signal });
    const reading = (async () => {
      try {
        for await (const e of stream) if (e.event.type === 'console_log') seen.push(String((e.event.data as { text?: string } | undefined)?.text));
      } catch {
        /* aborted */
      }
    })();
    // The page also keeps painting: the live view below sends frames only for what changes on screen.
    const r = await b.client.browsers.playwright.execute(id, {
      code: "await page.evaluate(() => { console.log('telemetry-through-b'); setInterval(() => { document.body.textContent = String(Date.now()); }, 100); }); return 1;",
    });
    expect(r).toMatchObject({ success: true, result: 1 });
    await pollUntil(
      'the console line streamed through B',
      async () => seen.slice(),
      (l) => l.includes('telemetry-through-b'),
    );
    ac.abort();
    await step('the telemetry stream to end once aborted', reading);

    const session = await b.client.browsers.retrieve(id);
    const open = async (url: string) => {
      const ws = new WebSocket(via(b, url));
      await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
      return ws;
    };
    const bidi = await open(session.webdriver_ws_url);
    const status = new Promise<Record<string, unknown>>((resolve) => bidi.once('message', (d) => resolve(JSON.parse(d.toString()))));
    bidi.send(JSON.stringify({ id: 1, method: 'session.status', params: {} }));
    expect(await step('the BiDi answer through B', status)).toMatchObject({ type: 'success', id: 1, result: { ready: expect.any(Boolean) } });
    bidi.close();

    const live = await open(session.browser_live_view_url!.replace(/^http/, 'ws').replace('/live?', '/live/ws?'));
    const frame = await step(
      'a live view frame through B',
      new Promise<{ type: string; data: string }>((resolve) =>
        live.on('message', (d) => {
          const m = JSON.parse(d.toString()) as { type: string; data: string };
          if (m.type === 'frame') resolve(m);
        }),
      ),
    );
    expect(Buffer.from(frame.data, 'base64').length).toBeGreaterThan(100);
    live.close();
  });

  it('closes the WebSocket pipes it forwards when it stops (engine stop does not wait for the client)', async () => {
    const c = await joinNode(a);
    const ws = new WebSocket(via(c, cdpUrl));
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      ws.on('error', () => {});
      // Without closing its pipes, C's HTTP server waits for this client forever.
      await c.stop();
      expect(await closed).toBeGreaterThan(0);
    } finally {
      ws.terminate();
      await c.stop();
    }
    // The session on A is untouched.
    expect(sessionsOf(a).get(id)).toBeDefined();
  });

  it('audits a forwarded request once, on the owner', async () => {
    const marker = `audit-once-${Date.now()}`;
    const res = await b.api(`/browsers/${id}/fs/file_info?path=/${marker}`);
    expect(res.status).toBe(404); // no such file: A answered (B alone would say the session ended)
    expect(['node_unavailable', 'session_ended']).not.toContain((await res.json()).code);
    await flushAudits(a, b);
    const rows = await a.engine.context.db.selectFrom('audit_logs').selectAll().where('path', 'like', `%${marker}%`).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 404, route: '/browsers/:id/fs/file_info', auth_strategy: 'api_key' });
  });

  it('never forwards a request that was already forwarded (loop guard)', async () => {
    const res = await b.api(`/browsers/${id}/fs/file_info?path=/x`, { headers: { 'x-browserdeck-forwarded-by': 'some-node' } });
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.code).toBe('node_unavailable');
    expect(body.message).toMatch(/never forwarded twice/);
  });

  it('deletes through B: the browser on A is gone', async () => {
    const rt = sessionsOf(a).get(id)!;
    const pid = (await rt.ready()).pid;
    await b.client.browsers.deleteByID(id);
    expect(sessionsOf(a).get(id)).toBeUndefined();
    const row = await a.engine.context.db.selectFrom('browser_sessions').select(['deleted_at', 'ended_reason']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.ended_reason).toBe('deleted');
    // DELETE answers once the session has ended; the browser is torn down behind it.
    await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(), { timeout: 15_000, interval: 50 });
    // Ended sessions are answered locally on B, as on any node.
    const after = await b.api(`/browsers/${id}/fs/file_info?path=/notes/b.txt`);
    expect(after.status).toBe(404);
    expect((await after.json()).code).toBe('session_ended');
  });

  it('serves a replay recorded on A through B, ranges included, after its session ended', async () => {
    const s = await a.client.browsers.create({ headless: true });
    const replay = await b.client.browsers.replays.start(s.session_id, { framerate: 10 });
    for (const [x, y] of [
      [50, 50],
      [200, 120],
      [300, 200],
    ])
      await b.client.browsers.computer.moveMouse(s.session_id, { x, y });
    // A video of a frame or two cannot be finished; wait until A's recorder has a second's worth.
    const replays = a.engine.services.replays as ReplayService;
    await pollUntil(
      'frames recorded on A',
      async () => replays.recorder(replay.replay_id)?.framesWritten ?? 0,
      (n) => n >= 10,
    );
    await b.client.browsers.replays.stop(replay.replay_id, { id: s.session_id });
    await b.client.browsers.deleteByID(s.session_id);
    // The file is on A only; B forwards even though the session has ended.
    const full = await pollUntil(
      'the replay finished',
      () => b.api(`/browsers/${s.session_id}/replays/${replay.replay_id}`),
      (r) => r.status === 200,
    );
    const bytes = Buffer.from(await full.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const part = await b.api(`/browsers/${s.session_id}/replays/${replay.replay_id}`, { headers: { range: 'bytes=10-109' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-109/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(10, 110));
  });
});
