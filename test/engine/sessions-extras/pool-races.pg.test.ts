import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitError } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ maxConcurrentSessions: 3 });
});
afterAll(() => t?.stop());

describe('pool reservations and acquires under concurrency', () => {
  it('lets only one of two parallel pool creates take the last slots', async () => {
    const results = await Promise.allSettled([1, 2].map(() => t.client.browserPools.create({ size: 2, headless: true, fill_rate_per_minute: 100 })));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(RateLimitError);
    const pool = (ok[0] as PromiseFulfilledResult<{ id: string }>).value;

    // 2 reserved + 1 free: of two parallel session creates exactly one fits.
    const creates = await Promise.allSettled([1, 2].map(() => t.client.browsers.create({ headless: true })));
    expect(creates.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of creates) if (r.status === 'fulfilled') await t.client.browsers.deleteByID(r.value.session_id);

    // Two parallel acquires on a pool with one idle browser left: one session each or a 204, never the same browser twice.
    await expect.poll(async () => (await t.client.browserPools.retrieve(pool.id)).available_count, { timeout: 30_000, interval: 100 }).toBe(2);
    const first = await t.client.browserPools.acquire(pool.id, {});
    const [a, b] = await Promise.all([1, 2].map(() => t.client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 1 })));
    const got = [a, b].filter((x) => x !== null);
    expect(got).toHaveLength(1);
    expect(got[0]!.session_id).not.toBe(first!.session_id);
    const counts = await t.client.browserPools.retrieve(pool.id);
    expect(counts).toMatchObject({ acquired_count: 2, available_count: 0 });
    await t.client.browserPools.delete(pool.id, { force: true });
  });
});
