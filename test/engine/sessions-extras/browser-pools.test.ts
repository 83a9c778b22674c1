import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer from 'puppeteer-core';
import { BadRequestError, ConflictError, NotFoundError, RateLimitError } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestPages, type TestPages } from './test-pages.js';
import { isAlive } from '../../helpers/proc.js';

let t: TestEngine;
let pages: TestPages;
beforeAll(async () => {
  // Small org limit: pool reservations must count against it.
  t = await startTestEngine({ maxConcurrentSessions: 3 });
  pages = await startTestPages();
});
afterAll(async () => {
  await t?.stop();
  await pages?.close();
});

async function waitAvailable(pool: string, n: number): Promise<void> {
  await expect.poll(async () => (await t.client.browserPools.retrieve(pool)).available_count, { timeout: 30_000, interval: 100 }).toBe(n);
}

describe('browser pools', () => {
  it('fills, hands out a usable session, takes it back, times out with 204, and counts toward the org limit', async () => {
    const pool = await t.client.browserPools.create({ name: 'warm', size: 2, headless: true, fill_rate_per_minute: 100, timeout_seconds: 120 });
    expect(pool).toMatchObject({
      name: 'warm',
      acquired_count: 0,
      extension_ids: [],
      browser_pool_config: { size: 2, headless: true, fill_rate_per_minute: 100, timeout_seconds: 120 },
    });
    await waitAvailable('warm', 2);
    // Idle pool browsers are not sessions a user sees.
    expect((await t.client.browsers.list()).getPaginatedItems()).toHaveLength(0);

    // 2 reserved by the pool + 1 on-demand = the org limit of 3; one more is refused.
    const extra = await t.client.browsers.create({ headless: true });
    const err = await t.client.browsers.create({ headless: true }).catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.headers.get('retry-after')).toMatch(/^\d+$/);
    await t.client.browsers.deleteByID(extra.session_id);

    const s = await t.client.browserPools.acquire('warm', { name: 'from-pool', tags: { team: 'qa' } });
    expect(s).toMatchObject({ name: 'from-pool', tags: { team: 'qa' }, pool: { id: pool.id, name: 'warm' }, headless: true, timeout_seconds: 120 });
    expect(await t.client.browserPools.retrieve('warm')).toMatchObject({ acquired_count: 1, available_count: 1 });
    // A normal session: listed, retrievable, drivable over CDP.
    expect((await t.client.browsers.list()).getPaginatedItems().map((x) => x.session_id)).toEqual([s!.session_id]);
    const b = await puppeteer.connect({ browserWSEndpoint: s!.cdp_ws_url });
    const page = await b.newPage();
    await page.goto(`${pages.url}/hello`);
    expect(await page.title()).toBe('Hello from the test page');
    await b.disconnect();

    await t.client.browserPools.release('warm', { session_id: s!.session_id });
    const ended = await t.client.browsers.retrieve(s!.session_id, { include_deleted: true });
    expect(ended.deleted_at).toBeDefined();
    await waitAvailable('warm', 2);

    const a1 = await t.client.browserPools.acquire('warm', {});
    const a2 = await t.client.browserPools.acquire('warm', { start_url: `${pages.url}/hello` });
    expect(a1!.session_id).not.toBe(s!.session_id);
    const b2 = await puppeteer.connect({ browserWSEndpoint: a2!.cdp_ws_url });
    await expect.poll(async () => (await b2.pages()).map((p) => p.url())).toContain(`${pages.url}/hello`);
    await b2.disconnect();
    // Nothing free: the long poll ends with 204, which the official client returns as null.
    expect(await t.client.browserPools.acquire('warm', { acquire_timeout_seconds: 1 })).toBeNull();

    // Deleting a pool with acquired browsers needs force.
    await expect(t.client.browserPools.delete('warm')).rejects.toBeInstanceOf(ConflictError);
    await t.client.browserPools.release('warm', { session_id: a1!.session_id, reuse: false });
    await t.client.browserPools.delete('warm', { force: true });
    expect((await t.client.browsers.retrieve(a2!.session_id, { include_deleted: true })).deleted_at).toBeDefined();
    await expect(t.client.browserPools.retrieve('warm')).rejects.toBeInstanceOf(NotFoundError);
    // The reservation is gone with the pool.
    const after = await Promise.all([1, 2, 3].map(() => t.client.browsers.create({ headless: true })));
    await Promise.all(after.map((x) => t.client.browsers.deleteByID(x.session_id)));
  });

  it('serves a waiting acquirer as soon as a browser is released', async () => {
    const pool = await t.client.browserPools.create({ size: 1, headless: true, fill_rate_per_minute: 100 });
    await waitAvailable(pool.id, 1);
    const first = await t.client.browserPools.acquire(pool.id, { telemetry: { browser: { console: { enabled: true } } } });
    expect(first!.telemetry?.browser?.console?.enabled).toBe(true);
    expect((await t.client.browsers.retrieve(first!.session_id)).telemetry?.browser?.console?.enabled).toBe(true);
    const waiting = t.client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 30 });
    await new Promise((r) => setTimeout(r, 300));
    await t.client.browserPools.release(pool.id, { session_id: first!.session_id, reuse: true });
    const second = await waiting;
    expect(second).not.toBeNull();
    expect(second!.session_id).not.toBe(first!.session_id);
    await t.client.browserPools.release(pool.id, { session_id: second!.session_id });
    await t.client.browserPools.delete(pool.id);
  });

  it('release answers before the teardown; an acquire during it gets another browser, never the released one', async () => {
    const pool = await t.client.browserPools.create({ size: 2, headless: true, fill_rate_per_minute: 100 });
    await waitAvailable(pool.id, 2);
    const first = await t.client.browserPools.acquire(pool.id, {});
    const rt = t.engine.services.sessions.get(first!.session_id)!;
    const pid = rt.browser!.pid;
    // Holds the released session's teardown (a scope closes newest first) until the test lets it go.
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    rt.scope.defer('held by the test', () => held);
    try {
      await t.client.browserPools.release(pool.id, { session_id: first!.session_id });
      // Answered while the teardown is held (its browser still runs); the session is over for every client already.
      expect(isAlive(pid)).toBe(true);
      expect((await t.client.browsers.retrieve(first!.session_id, { include_deleted: true })).deleted_at).toBeDefined();
      const next = await t.client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 30 });
      expect(next!.session_id).not.toBe(first!.session_id);
      await t.client.browserPools.release(pool.id, { session_id: next!.session_id });
    } finally {
      letGo();
    }
    await t.client.browserPools.delete(pool.id, { force: true });
  });

  it('flushes idle browsers, patches config, validates input and refuses pools beyond the limit', async () => {
    const pool = await t.client.browserPools.create({ name: 'cfg', size: 1, headless: true, fill_rate_per_minute: 1000, start_url: `${pages.url}/hello` });
    await waitAvailable('cfg', 1);
    const before = await t.client.browserPools.acquire('cfg', {});
    await t.client.browserPools.release('cfg', { session_id: before!.session_id });
    await waitAvailable('cfg', 1);
    await t.client.browserPools.flush('cfg');
    await waitAvailable('cfg', 1);

    const patched = await t.client.browserPools.update('cfg', { start_url: '', name: '', discard_all_idle: true, timeout_seconds: 300 });
    expect(patched.name).toBe('cfg');
    expect(patched.browser_pool_config.start_url).toBeUndefined();
    expect(patched.browser_pool_config.timeout_seconds).toBe(300);

    await expect(t.client.browserPools.create({ name: 'cfg', size: 1, headless: true })).rejects.toBeInstanceOf(ConflictError);
    await expect(t.client.browserPools.create({ size: 0 })).rejects.toBeInstanceOf(BadRequestError);
    await expect(t.client.browserPools.create({ size: 1, fill_rate_per_minute: 0 })).rejects.toBeInstanceOf(BadRequestError);
    await expect(t.client.browserPools.create({ size: 1, profile: { name: 'nope' } })).rejects.toBeInstanceOf(NotFoundError);
    const res = await t.api('/browser_pools/cfg/acquire', { method: 'POST', json: { acquire_timeout_seconds: -1 } });
    expect(res.status).toBe(400);
    await expect(t.client.browserPools.release('cfg', { session_id: 'not-a-session' })).rejects.toBeInstanceOf(NotFoundError);
    // 1 reserved by 'cfg' + 3 more would exceed the org limit of 3.
    await expect(t.client.browserPools.create({ size: 3, headless: true })).rejects.toBeInstanceOf(RateLimitError);
    await expect(t.client.browserPools.update('cfg', { size: 4 })).rejects.toBeInstanceOf(RateLimitError);

    const listed = await t.client.browserPools.list({ name: 'cfg' });
    expect(listed.getPaginatedItems().map((p) => p.id)).toEqual([pool.id]);
    await t.client.browserPools.delete('cfg');
  });
});
