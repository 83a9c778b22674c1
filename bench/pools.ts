/**
 * Pool acquire latency for `npm run bench:sessions`: a filled pool, then repeatedly
 * POST /browser_pools/{id}/acquire (timed) → release (untimed) → wait until the pool is full
 * again, so every timed acquire hands over a pre-warmed browser. Targets: p50 ≤ 30 ms,
 * p99 ≤ 105 ms on the reference machine.
 */
type Api = (path: string, init?: RequestInit) => Promise<Response>;

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function waitFull(api: Api, poolId: string, size: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const p = await json<{ available_count: number }>(await api(`/browser_pools/${poolId}`), 'pool get');
    if (p.available_count >= size) return;
    if (Date.now() > deadline) throw new Error('pool did not fill within 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Milliseconds of each acquire call against a warm pool of `size` headless browsers. */
export async function measurePoolAcquire(api: Api, iterations: number, size = 2): Promise<number[]> {
  const pool = await json<{ id: string }>(
    await api('/browser_pools', { method: 'POST', body: JSON.stringify({ size, headless: true, fill_rate_per_minute: 10_000, timeout_seconds: 3600 }) }),
    'pool create',
  );
  const times: number[] = [];
  try {
    await waitFull(api, pool.id, size);
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      const res = await api(`/browser_pools/${pool.id}/acquire`, { method: 'POST', body: JSON.stringify({ acquire_timeout_seconds: 10 }) });
      const s = await json<{ session_id: string }>(res, 'acquire');
      times.push(performance.now() - t0);
      await api(`/browser_pools/${pool.id}/release`, { method: 'POST', body: JSON.stringify({ session_id: s.session_id, reuse: true }) });
      await waitFull(api, pool.id, size);
    }
  } finally {
    await api(`/browser_pools/${pool.id}`, { method: 'DELETE', body: JSON.stringify({ force: true }) });
  }
  return times;
}
