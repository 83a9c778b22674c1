/**
 * Standby browsers (issue 14 item 1), real Chromium in real bubblewrap: a create whose options
 * apply to a running browser is served by one launched before the request; the claimed browser
 * never serves anyone else, and the refill starts at the claim; a create that finds none ready adopts
 * the standby launch under way; its options are applied (viewport, start_url, stealth user agent,
 * a proxy through the jail's egress socket, name/tags/timeout); options that need their own
 * launch get a cold one; a project key's claimed session is as jailed as a cold one; standby
 * browsers die with the engine (`standby: 0` launching none: sessions/browsers-api.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { startTestProxy, type TestProxy } from '../../helpers/test-proxy.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { isAlive, pidsWith } from '../../helpers/proc.js';
import { DEFAULT_SHAPE } from '../../../src/engine/domain/sessions/standby-shape.js';
import type { RunningSession } from '../../../src/engine/runtime/session/running-session.js';

let t: TestEngine;
let web: LocalServer;
let upstream: TestProxy;
let tenant: Kernel;

const standby = () => t.engine.services.sessions.standby;
/** Waits until the standby holds `n` ready browsers of the default (headless) shape; returns their ids. */
const ready = async (n = 1) =>
  pollUntil(
    'standby browsers ready',
    async () => standby().readyIds('headless'),
    (ids) => ids.length >= n,
    300,
  );
/** The browser pid of a ready standby browser (its first jail process). */
const standbyPid = (id: string) => t.engine.services.sessions.standbyRuntime(id)?.browser?.pid;

beforeAll(async () => {
  // Two: the stealth case needs a second shape beside the default one.
  t = await startTestEngine({ standby: 2 });
  web = await startLocalServer({ '/start': '<title>start page</title>', '/page': '<title>page</title>' });
  upstream = await startTestProxy();
  const project = await t.client.projects.create({ name: 'standby-tenant' });
  const key = await t.client.apiKeys.create({ name: 'standby-tenant-key', project_id: project.id });
  tenant = t.clientWith({ apiKey: key.key! });
});
afterAll(async () => {
  await upstream?.close();
  await web?.close();
  await t?.stop();
});

async function healthz() {
  return (await (await fetch(`${t.url}/healthz`)).json()) as {
    standby: {
      enabled: boolean;
      ready: number;
      claimed: number;
      adopted: number;
      cold: number;
      shapes: Array<{ shape: string; ready: number; target: number }>;
    };
  };
}

describe('standby browsers', () => {
  it('a create is served by a browser launched before the request, applies its options, and the standby refills with a new one', async () => {
    const [waiting] = await ready();
    const pid = standbyPid(waiting)!;
    expect(isAlive(pid)).toBe(true);
    expect((await healthz()).standby).toMatchObject({ enabled: true, ready: 1 });

    const s = await t.client.browsers.create({
      headless: true,
      viewport: { width: 800, height: 600 },
      start_url: `${web.url}/start`,
      name: 'from-standby',
      tags: { team: 'a' },
      timeout_seconds: 120,
    });
    // The session is the standby browser: same id, same process, which existed before the request.
    expect(s.session_id).toBe(waiting);
    expect(t.engine.services.sessions.get(s.session_id)!.browser!.pid).toBe(pid);
    expect(standby().readyIds()).not.toContain(s.session_id);
    expect(s).toMatchObject({ name: 'from-standby', tags: { team: 'a' }, timeout_seconds: 120, headless: true });

    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const page = browser.contexts()[0].pages()[0];
      expect(page.url()).toBe(`${web.url}/start`);
      expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([800, 600]);
    } finally {
      await browser.close();
    }

    // A fresh browser takes its place; the claimed one is never handed out again.
    const [next] = await ready();
    expect(next).not.toBe(s.session_id);
    await t.client.browsers.deleteByID(s.session_id);
    const again = await t.client.browsers.create({ headless: true });
    expect(again.session_id).toBe(next);
    expect(again.session_id).not.toBe(s.session_id);
    await t.client.browsers.deleteByID(again.session_id);
  });

  it('the refill starts at the claim: its browser is up while the claiming create is still being answered', async () => {
    const [waiting] = await ready();
    let refilled: string[] = [];
    // Runs inside the create, after the claim: the create is not answered until the refill's browser is ready.
    const off = t.engine.services.sessions.onSessionStart(async (rt) => {
      if (rt.id !== waiting) return;
      refilled = await pollUntil(
        'the refill ready during the create',
        async () => standby().readyIds('headless'),
        (ids) => ids.length > 0,
        300,
      );
    });
    try {
      const s = await t.client.browsers.create({ headless: true });
      expect(s.session_id).toBe(waiting);
      expect(refilled).not.toContain(s.session_id);
      expect(refilled.length).toBeGreaterThan(0);
      await t.client.browsers.deleteByID(s.session_id);
    } finally {
      off();
    }
  });

  it('a create that finds no ready browser adopts the standby launch under way instead of launching its own', async () => {
    const [waiting] = await ready();
    const before = (await healthz()).standby;
    let second: Promise<{ session_id: string }> | undefined;
    let readyThen: string[] = [];
    const heldBack: RunningSession[] = [];
    // Inside the first create, after its claim: the refill launches; a second create now finds none
    // ready (any other ready one is held back) and adopts that launch.
    const off = t.engine.services.sessions.onSessionStart(async (rt) => {
      if (rt.id !== waiting) return;
      while (standby().readyIds('headless').length) {
        const c = standby().take(DEFAULT_SHAPE);
        if (c?.from === 'ready') heldBack.push(c.ready);
      }
      readyThen = standby().readyIds('headless');
      second = t.client.browsers.create({ headless: true });
      await second.catch(() => {});
    });
    let first: { session_id: string } | undefined;
    try {
      first = await t.client.browsers.create({ headless: true });
    } finally {
      off();
    }
    const s = await second!;
    try {
      expect(first.session_id).toBe(waiting);
      expect(readyThen).toEqual([]);
      // Not a browser that was ready, not one of its own: the standby's launch, counted as adopted.
      expect(s.session_id).not.toBe(waiting);
      const after = (await healthz()).standby;
      expect(after.adopted).toBe(before.adopted + 1);
      expect(after.cold).toBe(before.cold);
      expect(t.engine.services.sessions.get(s.session_id)?.browser?.pid).toBeGreaterThan(0);
    } finally {
      for (const rt of heldBack) standby().giveBack(DEFAULT_SHAPE, rt);
      await t.client.browsers.deleteByID(s.session_id);
      await t.client.browsers.deleteByID(first.session_id);
    }
  });

  it('a proxy applies to a claimed browser: its traffic leaves through the upstream proxy', async () => {
    // Any browser ready before the request will do: with two ready, the standby may end one of
    // them (its target fell) between the look and the create, and the create claims the other.
    const waiting = await ready();
    const proxy = await t.client.proxies.create({ type: 'custom', config: { host: '127.0.0.1', port: upstream.port } });
    const s = await t.client.browsers.create({ headless: true, proxy_id: proxy.id! });
    expect(waiting).toContain(s.session_id);
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const res = await browser.contexts()[0].pages()[0].goto(`${web.url}/page`);
      expect(res?.status()).toBe(200);
      expect(upstream.targets()).toContain(`${web.url}/page`);
    } finally {
      await browser.close();
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it('stealth is a shape of its own: demand for it brings a stealth standby browser, whose user agent is a regular one', async () => {
    // The first stealth create finds none ready (cold) and counts as demand for the shape.
    const cold = await t.client.browsers.create({ headless: true, stealth: true });
    await t.client.browsers.deleteByID(cold.session_id);
    const health = await pollUntil(
      'a stealth standby browser',
      healthz,
      (h) => h.standby.shapes.some((x) => x.shape === 'headless+stealth' && x.ready === 1),
      300,
    );
    expect(health.standby.shapes.find((x) => x.shape === 'headless+stealth')!.target).toBe(1);
    const ids = standby().readyIds('headless+stealth');
    const s = await t.client.browsers.create({ headless: true, stealth: true });
    expect(ids).toContain(s.session_id);
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      const ua = await browser
        .contexts()[0]
        .pages()[0]
        .evaluate(() => [navigator.userAgent, navigator.webdriver]);
      expect(ua[0]).not.toContain('Headless');
      expect(ua[1]).toBe(false);
    } finally {
      await browser.close();
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it('options that need their own launch (kiosk, chrome_policy) launch cold and leave the standby alone', async () => {
    const before = await ready();
    for (const body of [{ kiosk_mode: true }, { chrome_policy: { URLBlocklist: ['example.com'] } }]) {
      const s = await t.client.browsers.create({ headless: true, ...body });
      expect(before).not.toContain(s.session_id);
      expect(standby().readyIds()).toEqual(expect.arrayContaining(before));
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it("a project key's claimed session is as jailed as a cold one: no engine files, no other session", async () => {
    const other = await t.client.browsers.create({ headless: true, kiosk_mode: true });
    fs.writeFileSync(path.join(t.dataDir, 'sessions', other.session_id, 'root', 'other-secret.txt'), 'other session secret');
    const waiting = await ready();
    const s = await tenant.browsers.create({ headless: true });
    expect(waiting).toContain(s.session_id);
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    try {
      // A tab per look: a refused file:// load commits its error page after goto has rejected,
      // and would interrupt the next goto in the same tab (seen as '' for a readable file).
      const see = async (p: string) => {
        const page = await browser.contexts()[0].newPage();
        try {
          return await page.goto(`file://${p}`).then(
            () => page.evaluate(() => document.body?.innerText ?? ''),
            () => '',
          );
        } finally {
          await page.close();
        }
      };
      expect(await see(path.join(t.dataDir, 'admin-api-key'))).not.toContain(t.adminKey);
      expect(await see(path.join(t.dataDir, 'sessions', other.session_id, 'root', 'other-secret.txt'))).not.toContain('other session secret');
      expect(await see('/etc/shadow')).not.toMatch(/^root:/m);
      // What file:// does show is its own filesystem.
      await tenant.browsers.fs.writeFile(s.session_id, Buffer.from('mine'), { path: '/tmp/mine.txt' });
      expect(await see('/tmp/mine.txt')).toBe('mine');
    } finally {
      await browser.close();
      await tenant.browsers.deleteByID(s.session_id);
      await t.client.browsers.deleteByID(other.session_id);
    }
    // Standby browsers never count against the tenant's project: a scoped key sees none of them.
    expect((await tenant.browsers.list()).getPaginatedItems()).toEqual([]);
  });

  // Last: it stops the file's engine (afterAll's stop is then a no-op). `standby: 0` launching
  // none is checked on a default test engine (sessions/browsers-api.test.ts, the first case).
  it('standby browsers end with the engine', { timeout: 180_000 }, async () => {
    const ids = await ready();
    const pid = standbyPid(ids[0])!;
    expect(pidsWith(t.dataDir).length).toBeGreaterThan(0);
    await t.engine.stop();
    expect(isAlive(pid)).toBe(false);
    expect(pidsWith(t.dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(t.dataDir, 'sessions', ids[0]))).toBe(false);
  });
});
