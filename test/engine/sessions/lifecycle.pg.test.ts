/**
 * Session lifecycle beyond single requests: the inactivity timeout (a connected CDP client
 * keeps a session alive, without clients it ends), a headful session on its own Xvfb, engine
 * stop ending every session, and recovery at start: a row the database says runs on this
 * node, with a leftover Chromium, is ended and its processes and directory removed — while a
 * recorded pid that does not carry the session's marker is never killed.
 *
 * Against PostgreSQL (the suite's second pass) only the cases about rows run: recovery at start
 * and the engine's stop. The inactivity timeout is the engine's own timers, and a headful
 * session its own Xvfb; they end a session with the same row update as any end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { WebSocket } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { processesWith, sessionDirsLeft, startTestWebServer, waitFor, type TestWebServer } from '../../helpers/chromium-web.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { launchChromium } from '../../../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../../../src/engine/runtime/chromium/chromium-flags.js';
import { findChromium } from '../../../src/engine/runtime/chromium/find-chromium.js';
import { shortTmpLink } from '../../../src/engine/runtime/session/short-tmp-link.js';

const ON_POSTGRES = !!process.env.BROWSERDECK_TEST_DATABASE_URL;

let te: TestEngine;
let web: TestWebServer;
/**
 * A second of `timeout_seconds` lasts this long here (EngineOptions.sessionSecondMs): the API's
 * shortest timeout, 10 s, ends an idle session after 5 s. Still longer than a create or a
 * WebSocket open takes on a loaded machine, which is all the keep-alives below must beat.
 */
const SECOND_MS = 500;

beforeAll(async () => {
  te = await startTestEngine({ sessionSecondMs: SECOND_MS });
  web = await startTestWebServer();
});

afterAll(async () => {
  await web.close();
  await te.stop();
  expect(processesWith(te.dataDir)).toEqual([]);
  expect(sessionDirsLeft(te.dataDir)).toEqual([]);
});

const manager = (t = te) => t.engine.services.sessions as SessionManager;
const endedReason = async (t: TestEngine, id: string) =>
  (await t.engine.context.db.selectFrom('browser_sessions').select(['ended_reason', 'deleted_at']).where('id', '=', id).executeTakeFirstOrThrow()).ended_reason;

// The first three cases use their own sessions (the third its own engines) and mostly wait
// (inactivity timeouts, browser starts), so they run side by side; the engine-stop race runs
// alone after them. Concurrent cases assert with their context's `expect`.
describe('session lifecycle', () => {
  it.skipIf(ON_POSTGRES).concurrent(
    'ends idle sessions after timeout_seconds; a connected CDP client keeps one alive',
    async ({ expect }) => {
      // Each keep-alive starts right after its session exists: on a loaded machine the next
      // creates can take longer than the 10 s timeout.
      const poked = await te.client.browsers.create({ headless: true, timeout_seconds: 10 });
      // API calls on a session are activity too.
      const poking = setInterval(() => void te.client.browsers.retrieve(poked.session_id).catch(() => {}), 2 * SECOND_MS);
      let held: Awaited<ReturnType<typeof te.client.browsers.create>>;
      let idle: Awaited<ReturnType<typeof te.client.browsers.create>>;
      let ws: WebSocket;
      try {
        held = await te.client.browsers.create({ headless: true, timeout_seconds: 10 });
        ws = new WebSocket(held.cdp_ws_url);
        await new Promise((r) => ws.once('open', r));
        idle = await te.client.browsers.create({ headless: true, timeout_seconds: 10 });
        await waitFor(async () => (await endedReason(te, idle.session_id)) === 'timeout', 30_000, 'idle session timeout');
      } finally {
        clearInterval(poking);
      }
      expect(processesWith(path.join(te.dataDir, 'sessions', idle.session_id))).toEqual([]);
      // Longer than their timeout has passed for `held` and `poked` too, but a client / API calls kept them.
      expect(manager().get(held.session_id)).toBeDefined();
      expect(await endedReason(te, held.session_id)).toBeNull();
      expect(manager().get(poked.session_id)).toBeDefined();
      // Both left alone at once (no more API calls, the client gone): their two timeouts run side by side.
      const closed = new Promise((r) => ws.once('close', r));
      ws.close();
      await closed;
      await Promise.all([
        waitFor(async () => (await endedReason(te, poked.session_id)) === 'timeout', 30_000, 'poked session timeout once left alone'),
        waitFor(async () => (await endedReason(te, held.session_id)) === 'timeout', 30_000, 'held session timeout after disconnect'),
      ]);
      const ended = await te.client.browsers.retrieve(held.session_id, { include_deleted: true });
      expect(ended.deleted_at).toBeTruthy();
      expect(ended.usage?.uptime_ms).toBeGreaterThanOrEqual(10 * SECOND_MS);
    },
    120_000,
  ); // two 10 s session timeouts (5 s here) in a row, after creates that a loaded CI machine slows down

  it.skipIf(ON_POSTGRES).concurrent('runs headful sessions on their own Xvfb: start_url in the first tab, kiosk_mode full screen', async ({ expect }) => {
    const s = await te.client.browsers.create({ headless: false, start_url: `${web.url}/title/Start%20Page`, viewport: { width: 1024, height: 768 } });
    const rt = manager().get(s.session_id)!;
    if (!process.env.DISPLAY) {
      expect(rt.display).toMatch(/^:\d+$/);
      // Jailed, Xvfb runs under bwrap, whose command line binds the session's X socket dir.
      if (rt.jailed) expect(processesWith(path.join(te.dataDir, 'sessions', s.session_id, 'x11')).length).toBeGreaterThan(0);
      else expect(processesWith(`Xvfb ${path.join(te.dataDir, 'sessions', s.session_id)}`)).toHaveLength(1);
    }
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    const page = browser.contexts()[0].pages()[0];
    await page.waitForLoadState();
    expect(await page.title()).toBe('Start Page');
    // Jailed (Chromium's own sandbox on) a headful browser reports webdriver like a person's Chrome.
    expect(await page.evaluate(() => [window.innerWidth > 0, navigator.webdriver])).toEqual([true, !rt.jailed]);
    const cdp = await browser.contexts()[0].newCDPSession(page);
    expect((await cdp.send('Browser.getWindowForTarget')).bounds.windowState).toBe('normal');
    await browser.close();
    await te.client.browsers.deleteByID(s.session_id);

    // kiosk_mode: a full-screen window without browser UI.
    const kiosk = await te.client.browsers.create({ headless: false, kiosk_mode: true, viewport: { width: 1024, height: 768 } });
    expect(kiosk.kiosk_mode).toBe(true);
    const kb = await chromium.connectOverCDP(kiosk.cdp_ws_url);
    const kp = kb.contexts()[0].pages()[0];
    const kcdp = await kb.contexts()[0].newCDPSession(kp);
    await waitFor(async () => (await kcdp.send('Browser.getWindowForTarget')).bounds.windowState === 'fullscreen', 10_000, 'kiosk window full screen');
    // No toolbar or tab strip: the page gets (nearly: X may keep a 1px edge) the whole screen.
    const [kw, kh] = await kp.evaluate(() => [window.innerWidth, window.innerHeight]);
    expect(kw).toBeGreaterThanOrEqual(1020);
    expect(kh).toBeGreaterThanOrEqual(760);
    await kb.close();
    await te.client.browsers.deleteByID(kiosk.session_id);
    // A delete answers at once and tears down in the background.
    await expect.poll(() => processesWith(path.join(te.dataDir, 'sessions', s.session_id)), { timeout: 30_000 }).toEqual([]);
    await expect.poll(() => processesWith(path.join(te.dataDir, 'sessions', kiosk.session_id)), { timeout: 30_000 }).toEqual([]);
  });

  it.concurrent('ends every session at engine stop and recovers leftovers of an unclean stop at start', async ({ expect }) => {
    const dataDir = fs.mkdtempSync(path.join(path.dirname(te.dataDir), 'bd-test-'));
    const a = await startTestEngine({ dataDir });
    let b: TestEngine | undefined;
    let leftover: Awaited<ReturnType<typeof launchChromium>> | undefined;
    const bystander = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    try {
      const databaseUrl = a.engine.config.databaseUrl;
      const running = await a.client.browsers.create({ headless: true });
      const m = manager(a);

      // A row that says "running on this node" with a real leftover Chromium nobody supervises,
      // as after a crash of the engine process.
      const ghostId = 'ghost0000000000000000000';
      const ghostDir = path.join(dataDir, 'sessions', ghostId);
      fs.mkdirSync(path.join(ghostDir, 'user-data'), { recursive: true });
      fs.mkdirSync(path.join(ghostDir, 'tmp'), { recursive: true });
      // Like the engine: a short TMPDIR link (Chromium's singleton socket path has a length limit).
      const tmpLink = shortTmpLink(ghostId)!;
      fs.rmSync(tmpLink, { force: true });
      fs.symlinkSync(path.join(ghostDir, 'tmp'), tmpLink);
      leftover = await launchChromium({
        executable: findChromium()!,
        args: chromiumArgs({
          userDataDir: path.join(ghostDir, 'user-data'),
          headless: true,
          viewport: { width: 800, height: 600 },
          runningAsRoot: process.getuid?.() === 0,
        }),
        env: { ...process.env, TMPDIR: tmpLink },
      });
      leftover.control.close();
      // `bystander`: a recorded pid that is NOT the session's (pid reuse): it must survive recovery.
      const base = await a.engine.context.db.selectFrom('browser_sessions').selectAll().where('id', '=', running.session_id).executeTakeFirstOrThrow();
      await a.engine.context.db
        .insertInto('browser_sessions')
        .values({
          ...base,
          id: ghostId,
          name: null,
          pid: leftover.pid,
          pgid: leftover.pgid,
          xvfb_pid: bystander.pid!,
          marker: ghostDir,
          deleted_at: null,
          ended_reason: null,
        })
        .execute();
      const orphanDir = path.join(dataDir, 'sessions', 'orphan-dir-without-row');
      fs.mkdirSync(orphanDir, { recursive: true });
      expect(m.get(ghostId)).toBeUndefined();

      await a.engine.stop();
      // Engine stop: the real session ended and its browser is gone; the ghost is untouched so far.
      expect(processesWith(path.join(dataDir, 'sessions', running.session_id))).toEqual([]);
      expect(processesWith(ghostDir).length).toBeGreaterThan(0);

      b = await startTestEngine({ dataDir, databaseUrl });
      await waitFor(() => processesWith(ghostDir).length === 0, 10_000, 'leftover Chromium killed');
      expect(fs.existsSync(ghostDir)).toBe(false);
      expect(fs.existsSync(tmpLink)).toBe(false);
      expect(fs.existsSync(orphanDir)).toBe(false);
      expect(await endedReason(b!, ghostId)).toBe('engine_restarted');
      expect(await endedReason(b!, running.session_id)).toBe('engine_stopped');
      expect(bystander.exitCode).toBeNull();
      expect(() => process.kill(bystander.pid!, 0)).not.toThrow();
      const listed = await b!.client.browsers.list({ status: 'all' });
      expect(listed.getPaginatedItems().map((s) => s.session_id)).toEqual(expect.arrayContaining([running.session_id, ghostId]));
      expect((await b!.client.browsers.list()).getPaginatedItems()).toEqual([]);
    } finally {
      bystander.kill('SIGKILL');
      if (leftover) {
        try {
          process.kill(-leftover.pgid, 'SIGKILL');
        } catch {
          /* recovery already killed it */
        }
        await leftover.exited;
      }
      await b?.stop();
      await a.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('leaves no browser behind when the engine stops while a session is still starting', async () => {
    const t = await startTestEngine();
    const creating = t.api('/browsers', { method: 'POST', json: { headless: true } }).catch(() => undefined);
    await waitFor(() => sessionDirsLeft(t.dataDir).length > 0, 20_000, 'a session starting');
    await t.engine.stop();
    await creating;
    expect(processesWith(t.dataDir)).toEqual([]);
    expect(sessionDirsLeft(t.dataDir)).toEqual([]);
    await t.stop();
  });
});
