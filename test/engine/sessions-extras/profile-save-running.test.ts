/**
 * Saving a running browser into a profile (Kernel spec §8, `POST /browsers/{id}/profiles`) with
 * real Chromium: the cookie, localStorage and IndexedDB a page wrote reach a new session started
 * with that profile, while the saved session goes on (its browser restarted, its state kept, no
 * profile attached to it). Into a new profile by name, an existing one by id; 409 for an ended
 * session and a pooled browser; profile dirs 0700; of overlapping saves the last started wins.
 * The restarted browser reopens the tabs that were open (reloaded: in-page state is gone); a
 * successful save restarts the inactivity timer and a failed one does not, seen in the order
 * sessions with one timeout end in (their inactivity timers, advanced by the test, fire in the
 * order they fall due).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { ManualTimers } from '../../helpers/manual-timers.js';
import { readStorage, startTestPages, writeStorage, type TestPages } from './test-pages.js';

type Json = Record<string, unknown>;
let t: TestEngine;
let pages: TestPages;
beforeAll(async () => {
  t = await startTestEngine();
  pages = await startTestPages();
});
afterAll(async () => {
  await t?.stop();
  await pages?.close();
});

const read = (cdp: string) => readStorage(pages, cdp);
const write = (cdp: string, v: string) => writeStorage(pages, cdp, v);
/** The saved profile (`id`) on 200, the Error object otherwise (the tests assert the status first). */
async function save(sessionId: string, json: Json, te: TestEngine = t): Promise<{ status: number; body: Json & { id: string } }> {
  const res = await te.api(`/browsers/${sessionId}/profiles`, { method: 'POST', json });
  return { status: res.status, body: (await res.json()) as Json & { id: string } };
}

describe('saving a running browser into a profile', () => {
  it('copies its state into a new profile by name and an existing one by id, without ending it; refuses an unknown profile and an ended session', async () => {
    const s1 = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    await write(s1.cdp_ws_url, 'v1');
    const pidBefore = t.engine.services.sessions.get(s1.session_id)?.browser?.pid;
    const first = await save(s1.session_id, { name: 'live' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ id: expect.any(String), name: 'live' });

    // The session goes on, restarted on the same user-data-dir; no profile was attached to it.
    const after = await t.client.browsers.retrieve(s1.session_id);
    expect(after.profile).toBeUndefined();
    const pidAfter = t.engine.services.sessions.get(s1.session_id)?.browser?.pid;
    expect(pidAfter).toBeDefined();
    expect(pidAfter).not.toBe(pidBefore);
    expect(await read(s1.cdp_ws_url)).toEqual({ cookie: 'v1', local: 'v1', idb: 'v1' });

    const s2 = await t.client.browsers.create({ headless: true, profile: { name: 'live' } });
    expect(await read(s2.cdp_ws_url)).toEqual({ cookie: 'v1', local: 'v1', idb: 'v1' });

    await write(s1.cdp_ws_url, 'v2');
    const second = await save(s1.session_id, { id: first.body.id });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    const s3 = await t.client.browsers.create({ headless: true, profile: { id: first.body.id } });
    expect(await read(s3.cdp_ws_url)).toEqual({ cookie: 'v2', local: 'v2', idb: 'v2' });

    // Saved state stays the engine's own: 0700 profile dirs, no caches.
    const base = path.join(t.dataDir, 'profiles', first.body.id);
    expect((await fs.stat(base)).mode & 0o777).toBe(0o700);
    const entries = await fs.readdir(path.join(base, 'state', 'Default'));
    expect(entries.some((e) => /Cache|Service Worker/.test(e))).toBe(false);
    expect((await fs.readdir(base)).filter((e) => e.startsWith('.staging'))).toEqual([]);

    // The refusals, on s1 rather than a browser of their own (a launch is ~2 CPU-s): an unknown
    // profile, both id and name, and, once s1 has ended, the ended session.
    expect((await save(s1.session_id, { id: 'no-such-profile' })).status).toBe(404);
    expect((await save(s1.session_id, { id: 'x', name: 'y' })).status).toBe(400);
    for (const s of [s1, s2, s3]) await t.client.browsers.deleteByID(s.session_id);
    const ended = await save(s1.session_id, { name: 'after-end' });
    expect(ended.status).toBe(409);
    expect(ended.body.code).toBe('browser_not_active');
    expect((await t.client.profiles.list()).getPaginatedItems().some((p) => p.name === 'after-end')).toBe(false);
  }, 180_000);

  // The ended session's 409 and the unknown profile's 404 are checked on s1 at the end of the case above.
  it('answers 409 for a pooled browser and makes no profile', async () => {
    await t.client.browserPools.create({ name: 'saving', size: 1, headless: true, fill_rate_per_minute: 100, timeout_seconds: 120 });
    const pooled = await t.client.browserPools.acquire('saving', {});
    const r = await save(pooled.session_id, { name: 'from-pool' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('pooled_browser');
    // Deleted with its browser still acquired: a release first would launch a refill for nothing.
    await t.client.browserPools.delete('saving', { force: true });
    expect((await t.client.profiles.list()).getPaginatedItems().some((p) => p.name === 'from-pool')).toBe(false);
  });

  it('keeps the save that started last, and orders the end-of-session save by finish', async () => {
    const profiles = t.engine.services.profiles.profiles;
    const row = await t.client.profiles.create({ name: 'overlap' });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-overlap-'));
    const userData = async (v: string) => {
      const d = path.join(dir, v);
      await fs.mkdir(d, { recursive: true });
      await fs.writeFile(path.join(d, 'Local State'), v);
      return d;
    };
    const saved = () => fs.readFile(path.join(t.dataDir, 'profiles', row.id, 'state', 'Local State'), 'utf8');
    try {
      const a = profiles.beginRunningSave(row.id);
      const b = profiles.beginRunningSave(row.id);
      await a.copy(await userData('a'));
      await b.copy(await userData('b'));
      await b.commit();
      await a.commit(); // started first, finished last: dropped
      expect(await saved()).toBe('b');
      const c = profiles.beginRunningSave(row.id);
      await c.copy(await userData('c'));
      await profiles.saveFrom(row.id, await userData('end')); // the end-of-session save finishes first…
      await c.commit(); // …so the running save finishing after it wins
      expect(await saved()).toBe('c');
      await profiles.saveFrom(row.id, await userData('end2'));
      expect(await saved()).toBe('end2');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reopens the tabs that were open in the restarted browser (pages reload)', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    const before = await chromium.connectOverCDP(s.cdp_ws_url);
    const context = before.contexts()[0];
    const first = context.pages()[0] ?? (await context.newPage());
    await first.goto(`${pages.url}/clicks`);
    await first.click('#b');
    expect(await first.evaluate(() => (window as unknown as { clicks: number }).clicks)).toBe(1);
    await (await context.newPage()).goto(`${pages.url}/hello`);
    await before.close();

    const r = await save(s.session_id, { name: 'tabs' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);

    const after = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const cdp = await after.newBrowserCDPSession();
      const tabs = async () =>
        ((await cdp.send('Target.getTargets')).targetInfos as Array<{ type: string; url: string }>)
          .filter((x) => x.type === 'page')
          .map((x) => x.url)
          .sort();
      const wanted = [`${pages.url}/clicks`, `${pages.url}/hello`].sort();
      expect(await pollUntil('the restored tabs', tabs, (u) => JSON.stringify(u) === JSON.stringify(wanted))).toEqual(wanted);
      // Reloaded, not carried over: the click count starts again.
      const clicks = (
        await pollUntil(
          'the clicks tab in the new connection',
          async () => after.contexts()[0].pages(),
          (ps) => ps.some((p) => p.url().endsWith('/clicks')),
        )
      ).find((p) => p.url().endsWith('/clicks'))!;
      await clicks.waitForFunction(() => typeof (window as unknown as { clicks?: number }).clicks === 'number');
      expect(await clicks.evaluate(() => (window as unknown as { clicks: number }).clicks)).toBe(0);
    } finally {
      await after.close();
    }
    await t.client.browsers.deleteByID(s.session_id);
  }, 180_000);

  it('a successful save restarts the inactivity timer, a failed one does not', async () => {
    // An engine of its own whose inactivity timers the test advances by hand: the three 300 s
    // timeouts run out when it says, in the order they fall due (they waited 60 s of real time before).
    const timers = new ManualTimers();
    const timed = await startTestEngine({ sessionTimers: timers });
    try {
      // Three sessions with one timeout, armed a second apart in this order: saved (ok), saved (fails), untouched.
      const make = async () => {
        const s = await timed.client.browsers.create({ headless: true, timeout_seconds: 300 });
        timers.pass(1000);
        return s;
      };
      const ok = await make();
      const failing = await make();
      const control = await make();
      expect(timers.armed).toBe(3);
      const order: string[] = [];
      const ends = (
        [
          ['ok', ok],
          ['failing', failing],
          ['control', control],
        ] as const
      ).map(([name, s]) => {
        const signal = timed.engine.services.sessions.get(s.session_id)!.signal;
        return new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            order.push(name);
            resolve();
          }),
        );
      });

      expect((await save(ok.session_id, { name: 'timer-ok' }, timed)).status).toBe(200);
      // A profile whose directory is a file: the copy fails after the browser was restarted.
      const broken = await timed.client.profiles.create({ name: 'timer-broken' });
      const dir = path.join(timed.dataDir, 'profiles', broken.id);
      await fs.rm(dir, { recursive: true, force: true });
      await fs.writeFile(dir, 'not a directory');
      const failed = await save(failing.session_id, { id: broken.id }, timed);
      expect(failed.status, JSON.stringify(failed.body)).toBe(502);
      expect(failed.body.code).toBe('profile_save_failed');
      expect(timed.engine.services.sessions.get(failing.session_id)).toBeDefined();

      // Nobody touches them from here on: each ends when its timer fires, one at a time.
      for (let i = 0; i < 3; i++) {
        expect(timers.fireNext()).toBe(true);
        await pollUntil(
          'the next session to end',
          async () => order.length,
          (n) => n === i + 1,
        );
      }
      await Promise.all(ends);
      // The failed save left its session's deadline where it was (first, as created first of the
      // two); the successful one moved its session's past the control's, created after it.
      expect(order).toEqual(['failing', 'control', 'ok']);
    } finally {
      await timed.stop();
    }
  }, 300_000);
});
