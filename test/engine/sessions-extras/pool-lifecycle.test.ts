import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConflictError } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { readStorage, startTestPages, writeStorage, type TestPages } from './test-pages.js';

let pages: TestPages;
/** The engine of the first two cases (each makes and deletes its own pool); the restart case has its own. */
let t: TestEngine;
beforeAll(async () => {
  pages = await startTestPages();
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
  await pages?.close();
});

async function waitAvailable(t: TestEngine, pool: string, n: number): Promise<void> {
  await expect.poll(async () => (await t.client.browserPools.retrieve(pool)).available_count, { timeout: 30_000, interval: 100 }).toBe(n);
}

describe('pools with profiles, projects and engine restarts', () => {
  it('pooled browsers start from the pool profile and are refreshed when it is saved', async () => {
    await t.client.profiles.create({ name: 'shared' });
    const writer = await t.client.browsers.create({ headless: true, profile: { name: 'shared', save_changes: true } });
    await writeStorage(pages, writer.cdp_ws_url, 'v1');
    await t.client.browsers.deleteByID(writer.session_id);

    const pool = await t.client.browserPools.create({
      name: 'with-profile',
      size: 1,
      headless: true,
      fill_rate_per_minute: 1000,
      profile: { name: 'shared' },
    });
    expect(pool.profile_id).toBe((await t.client.profiles.retrieve('shared')).id);
    expect(pool.browser_pool_config.refresh_on_profile_update).toBe(true);
    await waitAvailable(t, pool.id, 1);
    // The pool's browsers use the profile: it cannot be deleted now.
    await expect(t.client.profiles.delete('shared')).rejects.toBeInstanceOf(ConflictError);

    const a = await t.client.browserPools.acquire(pool.id, {});
    expect(a!.profile?.id).toBe(pool.profile_id);
    expect(await readStorage(pages, a!.cdp_ws_url)).toEqual({
      cookie: 'v1',
      local: 'v1',
      idb: 'v1',
    });
    await t.client.browserPools.release(pool.id, { session_id: a!.session_id });
    await waitAvailable(t, pool.id, 1);

    // A later save of the profile replaces the idle browser that loaded v1.
    const writer2 = await t.client.browsers.create({ headless: true, profile: { name: 'shared', save_changes: true } });
    await writeStorage(pages, writer2.cdp_ws_url, 'v2');
    await t.client.browsers.deleteByID(writer2.session_id);
    await waitAvailable(t, pool.id, 1);
    const b = await t.client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 30 });
    await expect.poll(() => readStorage(pages, b!.cdp_ws_url), { timeout: 20_000 }).toEqual({ cookie: 'v2', local: 'v2', idb: 'v2' });
    await t.client.browserPools.delete(pool.id, { force: true });
  });

  it('a pool keeps its project from being deleted', async () => {
    const proj = await t.client.projects.create({ name: 'pool-proj' });
    const scoped = t.clientWith({ projectID: proj.id });
    const pool = await scoped.browserPools.create({ size: 1, headless: true });
    await expect(t.client.projects.delete(proj.id)).rejects.toBeInstanceOf(ConflictError);
    await scoped.browserPools.delete(pool.id);
    await t.client.projects.delete(proj.id);
  });

  it('refills after an engine restart and leaves no browser or session directory behind', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-pool-restart-'));
    try {
      let t = await startTestEngine({ dataDir });
      // One browser proves the refill as well as more would (a launch is ~2 CPU-s): the one held
      // at the stop has ended, and the restarted engine launches its replacement on its own.
      const pool = await t.client.browserPools.create({ name: 'durable', size: 1, headless: true, fill_rate_per_minute: 1000 });
      await waitAvailable(t, 'durable', 1);
      const held = await t.client.browserPools.acquire('durable', {});
      await t.stop();

      t = await startTestEngine({ dataDir });
      // The acquired session ended with the engine; the pool is back to full on its own.
      expect((await t.client.browsers.retrieve(held!.session_id, { include_deleted: true })).deleted_at).toBeDefined();
      await waitAvailable(t, pool.id, 1);
      expect((await t.client.browserPools.retrieve(pool.id)).acquired_count).toBe(0);
      await t.client.browserPools.delete(pool.id);
      await expect.poll(async () => (await fs.readdir(path.join(dataDir, 'sessions'))).length, { timeout: 10_000 }).toBe(0);
      await t.stop();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
