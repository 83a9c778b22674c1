/**
 * `/healthz` tells an operator (and a load balancer) what it needs without credentials: the
 * engine's version, its uptime, the jail state and the store with whether it answers — and
 * nothing sensitive (no data dir, no database address).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
});

describe('GET /healthz', () => {
  it('reports version, uptime, jail and store without auth', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const kind = t.engine.context.store.dialect;
    expect(body).toEqual({
      ok: true,
      version: pkg.version,
      uptime_seconds: expect.any(Number),
      jail: expect.objectContaining({ enabled: expect.any(Boolean) }),
      store: { kind, ok: true },
      // Test engines run with standby browsers and freezing off (test/helpers/engine.ts).
      standby: expect.objectContaining({ enabled: false, ready: 0, claimed: 0 }),
      freeze: expect.objectContaining({ method: 'off', frozen: 0 }),
      // How a session's memory is enforced here (a root engine with a memory cgroup: cgroup-v1/v2).
      memory: { method: expect.stringMatching(/^(cgroup-v1|cgroup-v2|none)$/) },
      // The bounds in force (issue 25): one key per resource. Test engines allow this host
      // (test/helpers/engine.ts): neither loopback nor the host's addresses are denied.
      limits: expect.objectContaining({
        egress: { host_addresses_denied: false, loopback_denied: false },
        fs_watch: { max_dirs_per_session: 8192, jailed: expect.any(Boolean) },
        // What a runner of tenant code may send the engine in one message (32 MiB by default).
        runner_channel: { max_message_bytes: 32 * 1024 * 1024, max_pending_bytes: 8 * 32 * 1024 * 1024 },
        exec: { per_session: 8, per_engine: 32, output_max_bytes: 4 * 1024 * 1024, in_use: 0 },
        connections: { per_session: 64, per_engine: expect.any(Number), open: 0 },
        pids: { method: expect.stringMatching(/^(cgroup-v1|cgroup-v2|rlimit|none)$/), per_session: expect.any(Number), per_engine: expect.any(Number) },
        disk: { method: expect.stringMatching(/^(loop|none)$/), per_session_mb: 2048, reserve_mb: 1024, low: expect.any(Boolean) },
      }),
    });
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(body);
    expect(text).not.toContain(t.dataDir);
    expect(text).not.toMatch(/postgres(ql)?:\/\/|\.sqlite/);
  });

  it('answers 503 with store.ok false once the store stops answering', async () => {
    await t.engine.context.store.close();
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ok: false, store: { ok: false } });
  });
});
