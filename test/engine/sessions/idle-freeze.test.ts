/**
 * Freezing idle sessions (issue 14 item 1, Kernel's "standby after 5 s with no client"): with
 * no client connected and no API call for `freezeIdleSeconds`, a session's jail is frozen (cgroup
 * v2 freezer here: every process of the jail stopped); a CDP connection or an API call thaws it
 * and is served as usual; the inactivity timeout keeps counting while it is frozen.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { descendants } from '../../helpers/proc.js';
import { startLocalServer } from '../../helpers/local-server.js';

let t: TestEngine;
// A second lasts 250 ms here: the jail freezes after 4 of them (1 s), and the inactivity
// timeout of 10 s runs out in 2.5 s.
beforeAll(async () => {
  t = await startTestEngine({ freezeIdleSeconds: 4, sessionSecondMs: 250 });
});
afterAll(() => t?.stop());

const runtime = (id: string) => t.engine.services.sessions.get(id)!;
const frozen = (id: string) =>
  pollUntil(
    `session ${id} frozen`,
    async () => runtime(id).frozen,
    (f) => f,
    100,
  );

/** Whether the kernel reports every process of the jail stopped (cgroup: `frozen 1`; signals: state T). */
function jailStopped(id: string): boolean {
  const pid = runtime(id).browser!.pid;
  const cgroup = fs
    .readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::'))!
    .slice(3);
  if (cgroup.includes(`-${id}`)) {
    const mount = '/sys/fs/cgroup/unified';
    const dir = fs.existsSync(`${mount}${cgroup}`) ? `${mount}${cgroup}` : `/sys/fs/cgroup${cgroup}`;
    return /^frozen 1$/m.test(fs.readFileSync(`${dir}/cgroup.events`, 'utf8'));
  }
  return descendants(pid).every((p) => /^State:\s+T/m.test(fs.readFileSync(`/proc/${p}/status`, 'utf8')));
}

describe('idle sessions are frozen and thawed transparently', () => {
  it('freezes after the idle time; a CDP connection thaws it and works; an API call thaws it', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    await frozen(s.session_id);
    // The kernel stops the jail's tasks asynchronously after the write (cgroup.events says `frozen 1` once all are).
    expect(
      await pollUntil(
        'the jail stopped',
        async () => jailStopped(s.session_id),
        (x) => x,
        50,
        100,
      ),
    ).toBe(true);
    const health = (await (await fetch(`${t.url}/healthz`)).json()) as { freeze: { method: string; frozen: number } };
    expect(health.freeze.frozen).toBe(1);
    expect(['cgroup', 'signal']).toContain(health.freeze.method);

    // A CDP client: the connection thaws the jail and the browser answers.
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    expect(runtime(s.session_id).frozen).toBe(false);
    const page = browser.contexts()[0].pages()[0];
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
    // Connected clients keep it thawed, however long they stay quiet.
    await new Promise((r) => setTimeout(r, 1500));
    expect(runtime(s.session_id).frozen).toBe(false);
    await browser.close();

    // Alone again: frozen again; an API call on the session thaws it before it runs.
    await frozen(s.session_id);
    const shot = await t.client.browsers.computer.captureScreenshot(s.session_id);
    expect((await shot.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect(jailStopped(s.session_id)).toBe(false);
    await t.client.browsers.deleteByID(s.session_id);
  });

  it('a call in flight keeps the jail thawed past the idle time (a slow /curl answers)', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    // The target answers only after twice the idle time; meanwhile the session must not freeze.
    let frozenMeanwhile: boolean | undefined;
    const slow = await startLocalServer((_req, res) => {
      setTimeout(() => {
        frozenMeanwhile = runtime(s.session_id).frozen;
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('late');
      }, 2000);
    });
    try {
      const r = await t.client.browsers.curl(s.session_id, { url: `${slow.url}/`, timeout_ms: 20_000 });
      expect(frozenMeanwhile).toBe(false);
      expect(r.status).toBe(200);
      expect(r.body).toBe('late');
      // Done: idle again, it freezes as before.
      await frozen(s.session_id);
    } finally {
      await slow.close();
      await t.client.browsers.deleteByID(s.session_id);
    }
  });

  it('a replay recording keeps the jail thawed while it records, and the session freezes after it', async () => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    await frozen(s.session_id);
    const replay = await t.client.browsers.replays.start(s.session_id, { framerate: 5 });
    // Well past the idle time (twice) with no API call and no client: a frozen browser would send no frame.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(runtime(s.session_id).frozen).toBe(false);
    expect(jailStopped(s.session_id)).toBe(false);
    await t.client.browsers.replays.stop(replay.replay_id, { id: s.session_id });
    const done = await pollUntil(
      'the replay finished',
      async () => (await t.client.browsers.replays.list(s.session_id)).find((r) => r.replay_id === replay.replay_id),
      (r) => r?.finished_at != null,
    );
    expect(done?.replay_view_url).toBeTruthy();
    await frozen(s.session_id);
    await t.client.browsers.deleteByID(s.session_id);
  });

  // The last two mostly wait (a timeout, a second engine's idle time): side by side, each with its context's `expect`.
  it.concurrent('the inactivity timeout still counts while frozen', async ({ expect }) => {
    const s = await t.client.browsers.create({ headless: true, timeout_seconds: 10 });
    await frozen(s.session_id);
    const ended = async () => (await t.client.browsers.list({ status: 'deleted' })).getPaginatedItems().some((x) => x.session_id === s.session_id);
    await expect.poll(ended, { timeout: 40_000, interval: 500 }).toBe(true);
  });

  it.concurrent('freezeIdleSeconds 0 never freezes', async ({ expect }) => {
    const off = await startTestEngine({ freezeIdleSeconds: 0 });
    try {
      const s = await off.client.browsers.create({ headless: true });
      await new Promise((r) => setTimeout(r, 2000));
      expect(off.engine.services.sessions.get(s.session_id)!.frozen).toBe(false);
      await off.client.browsers.deleteByID(s.session_id);
    } finally {
      await off.stop();
    }
  });
});
