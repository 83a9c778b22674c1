/**
 * `/browsers/{id}/logs/stream` through the official client against real sessions: tailing a
 * file of the session filesystem (follow=false closes after the content; follow=true streams
 * appends, survives truncation and rotation), the supervisor logs of the session's own services
 * (Chromium's stderr as `browser`), 400s for missing or wrong parameters (listing the valid
 * services), 404/403 for missing or escaping paths, JWT access via base_url, and streams that
 * close when their session ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let te: TestEngine;
let id: string;
let root: string;
let baseUrl: string;
let jwt: string;

const rootOf = (sid: string) => (te.engine.services.sessions as { get(id: string): { dirs: { root: string } } }).get(sid).dirs.root;

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(async () => {
  te = await startTestEngine();
  const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  id = s.session_id;
  baseUrl = s.base_url!;
  jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
  root = rootOf(id);
});
afterAll(() => te?.stop());

describe('session logs', () => {
  it('streams a file once with follow=false', async () => {
    await te.client.browsers.fs.writeFile(id, 'first\nsecond\r\nthird', { path: '/logs/app.log' });
    const events = [];
    for await (const e of await te.client.browsers.logs.stream(id, { source: 'path', path: '/logs/app.log', follow: false })) events.push(e);
    expect(events.map((e) => e.message)).toEqual(['first', 'second', 'third']);
    for (const e of events) {
      expect(e.event).toBe('log');
      expect(Date.parse(e.timestamp)).toBeGreaterThan(0);
    }
  });

  it('follows appends, truncation and rotation', async () => {
    const file = path.join(root, 'logs/follow.log');
    await fsp.writeFile(file, 'old line\n');
    const ac = new AbortController();
    const stream = await te.client.browsers.logs.stream(id, { source: 'path', path: '/logs/follow.log' }, { signal: ac.signal });
    const got: string[] = [];
    const reading = (async () => {
      try {
        for await (const e of stream) got.push(e.message);
      } catch {
        /* aborted */
      }
    })();
    await until(() => got.includes('old line'));
    await fsp.appendFile(file, 'appended 1\npartial');
    await until(() => got.includes('appended 1'));
    await fsp.appendFile(file, ' done\n');
    await until(() => got.includes('partial done'));
    await fsp.truncate(file, 0);
    // Shorter than what was already read, so the tail sees the shrink whenever it looks.
    await fsp.appendFile(file, 'after truncate\n');
    await until(() => got.includes('after truncate'));
    await fsp.rename(file, `${file}.1`);
    await fsp.writeFile(file, 'rotated fresh\n');
    await until(() => got.includes('rotated fresh'));
    ac.abort();
    await reading;
    expect(got).toEqual(['old line', 'appended 1', 'partial done', 'after truncate', 'rotated fresh']);
  });

  it('shows the session services (supervisor): Chromium stderr as "browser"', async () => {
    const lines: string[] = [];
    for await (const e of await te.client.browsers.logs.stream(id, { source: 'supervisor', supervisor_process: 'browser', follow: false }))
      lines.push(e.message);
    expect(lines.some((l) => l.includes('DevTools listening on'))).toBe(true);
    const session: string[] = [];
    for await (const e of await te.client.browsers.logs.stream(id, { source: 'supervisor', supervisor_process: 'session', follow: false }))
      session.push(e.message);
    expect(session.some((l) => l.startsWith('browser started'))).toBe(true);
  });

  it('answers 400/404 for bad parameters before streaming', async () => {
    const logs = te.client.browsers.logs;
    await fsp.symlink('/etc/passwd', path.join(root, 'logs/passwd-link'));
    const cases: Array<[() => Promise<unknown>, number]> = [
      [() => logs.stream(id, { source: 'path' }), 400],
      [() => logs.stream(id, { source: 'supervisor' }), 400],
      [() => logs.stream(id, { source: 'files' as 'path', path: '/logs/app.log' }), 400],
      [() => logs.stream(id, { source: 'path', path: 'logs/app.log' }), 400],
      [() => logs.stream(id, { source: 'path', path: '/../../etc/passwd' }), 400],
      [() => logs.stream(id, { source: 'path', path: '/logs' }), 400],
      [() => logs.stream(id, { source: 'path', path: '/logs/missing.log' }), 404],
      // The link means the session's own /etc/passwd (as in its jail), which does not exist.
      [() => logs.stream(id, { source: 'path', path: '/logs/passwd-link' }), 404],
      [() => logs.stream('no-such-session', { source: 'path', path: '/logs/app.log' }), 404],
    ];
    for (const [i, [call, expected]] of cases.entries()) expect(await status(call()), `case ${i}`).toBe(expected);
    const res = await te.api(`/browsers/${id}/logs/stream?source=supervisor&supervisor_process=nginx`);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/browser, display, recorder, session/);
    expect((await te.api(`/browsers/${id}/logs/stream?source=path&path=/logs/app.log&follow=maybe`)).status).toBe(400);
    expect((await te.api(`/browsers/${id}/logs/stream`)).status).toBe(400);
  });

  it('works with the session JWT on base_url', async () => {
    const res = await fetch(`${baseUrl}/logs/stream?source=path&path=/logs/app.log&follow=false&jwt=${jwt}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(await res.text()).toContain('"message":"first"');
  });

  it('closes following streams when the session ends', async () => {
    const s = await te.client.browsers.create({ headless: true });
    await te.client.browsers.fs.writeFile(s.session_id, 'x\n', { path: '/f.log' });
    const fileStream = await te.client.browsers.logs.stream(s.session_id, { source: 'path', path: '/f.log' });
    const svcStream = await te.client.browsers.logs.stream(s.session_id, { source: 'supervisor', supervisor_process: 'browser' });
    const drain = async (st: AsyncIterable<unknown>) => {
      let n = 0;
      for await (const _ of st) n++;
      return n;
    };
    const a = drain(fileStream);
    const b = drain(svcStream);
    await te.client.browsers.deleteByID(s.session_id);
    expect(await a).toBe(1);
    expect(await b).toBeGreaterThan(0);
  });
});
