/**
 * Issue 25 row 3: a pids limit on every jail. With a small per-session limit (the engine's
 * `pids.perSession`), a session process that starts 250 `sleep`s gets fork failures (EAGAIN)
 * once the session's jails (browser, wrappers, the process) reach it — never a real fork bomb:
 * the count is bounded and the sleeps are killed — the session's telemetry says so once
 * (`system_limit_reached`), and another session still starts and runs processes, as does the
 * limited one once its sleeps are gone. Control: 20 sleeps below the limit all start. The
 * session's pids group sits in the engine's (its bound: `limits.pids.per_engine`) and is gone
 * once the session ends; `/healthz` shows both bounds.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';

/** A headless session's jails take ~100 tasks idle (Chromium's processes and threads): room for ~90 more. */
const LIMIT = 192;

let t: TestEngine;
/** The group of an engine that died (its pid is gone), with a session group inside, planted before this engine starts. */
let leftover: string | undefined;
beforeAll(async () => {
  const own = pidsGroupOf(process.pid);
  leftover = path.join(own, `bd-pids-${spawnSync('true').pid}`);
  fs.mkdirSync(path.join(leftover, 'a-session'), { recursive: true });
  t = await startTestEngine({ pids: { perSession: LIMIT } });
});
afterAll(async () => {
  await t?.stop();
  // A cgroup directory goes with rmdir, children first.
  for (const d of leftover ? [path.join(leftover, 'a-session'), leftover] : []) if (fs.existsSync(d)) fs.rmdirSync(d);
});

/** The pids cgroup (host path) a process is in: the v1 `pids` hierarchy or the v2 one. */
function pidsGroupOf(pid: number): string {
  const lines = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('pids'));
  if (v1) return path.join('/sys/fs/cgroup/pids', v1.split(':').slice(2).join(':'));
  return path.join('/sys/fs/cgroup', lines.find((l) => l.startsWith('0::'))!.slice(3));
}

/** Starts `n` sleeps in the session, reports how many started and how many forks failed, then kills them. */
async function sleeps(sessionId: string, n: number): Promise<{ started: number; failed: number }> {
  const script = [
    'import subprocess, sys',
    'procs, failed = [], 0',
    `for _ in range(${n}):`,
    '  try: procs.append(subprocess.Popen(["sleep", "1000"]))',
    '  except OSError: failed += 1',
    'print(len(procs), failed)',
    'for p in procs: p.kill()',
    'for p in procs: p.wait()',
  ].join('\n');
  const r = await t.client.browsers.process.exec(sessionId, { command: 'python3', args: ['-c', script], timeout_sec: 120 });
  const [started, failed] = Buffer.from(r.stdout_b64 ?? '', 'base64')
    .toString()
    .trim()
    .split(' ')
    .map(Number);
  return { started, failed };
}

async function echo(sessionId: string): Promise<string> {
  const r = await t.client.browsers.process.exec(sessionId, { command: 'sh', args: ['-c', 'echo still here'] });
  return Buffer.from(r.stdout_b64 ?? '', 'base64')
    .toString()
    .trim();
}

async function limitEvents(sessionId: string): Promise<Array<{ type: string; data?: Record<string, unknown> }>> {
  const out: Array<{ type: string; data?: Record<string, unknown> }> = [];
  for await (const e of t.client.browsers.telemetry.events(sessionId, { category: ['system'], limit: 100 }))
    out.push((e as unknown as { event: { type: string; data?: Record<string, unknown> } }).event);
  return out.filter((e) => e.type === 'system_limit_reached');
}

describe('a pids limit on every jail', () => {
  it('healthz shows the bounds in force: per session as configured, per engine far below pid_max', async () => {
    const health = (await (await fetch(`${t.url}/healthz`)).json()) as { limits: { pids: { method: string; per_session: number; per_engine: number } } };
    // This machine runs the engine as root with a pids controller (cgroup v1 here).
    expect(['cgroup-v1', 'cgroup-v2']).toContain(health.limits.pids.method);
    expect(health.limits.pids.per_session).toBe(LIMIT);
    const pidMax = Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    expect(health.limits.pids.per_engine).toBeGreaterThan(LIMIT);
    expect(health.limits.pids.per_engine).toBeLessThanOrEqual(pidMax / 4);
    // The start removed the dead engine's groups.
    expect(fs.existsSync(leftover!)).toBe(false);
  });

  it('a session process past the limit gets fork failures and one limit event; other sessions and the session itself carry on', async () => {
    const a = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    const group = pidsGroupOf(t.engine.services.sessions.get(a.session_id)!.browser!.pid);
    expect(path.basename(group)).toBe(a.session_id);
    expect(Number(fs.readFileSync(path.join(group, 'pids.max'), 'utf8'))).toBe(LIMIT);
    // Inside this engine's group, which bounds all its tenants together.
    const engineGroup = path.dirname(group);
    expect(path.basename(engineGroup)).toBe(`bd-pids-${process.pid}`);
    const health = (await (await fetch(`${t.url}/healthz`)).json()) as { limits: { pids: { per_engine: number } } };
    expect(Number(fs.readFileSync(path.join(engineGroup, 'pids.max'), 'utf8'))).toBe(health.limits.pids.per_engine);

    // Control: below the limit every sleep starts, and nothing is reported.
    expect(await sleeps(a.session_id, 20)).toEqual({ started: 20, failed: 0 });
    expect(await limitEvents(a.session_id)).toEqual([]);

    // Past it: the kernel refuses the forks (EAGAIN), the jail never exceeds its limit.
    const past = await sleeps(a.session_id, 250);
    expect(past.failed).toBeGreaterThan(0);
    expect(past.started).toBeLessThan(LIMIT);
    expect(Number(fs.readFileSync(path.join(group, 'pids.max'), 'utf8'))).toBe(LIMIT);

    // The session's telemetry says it, once.
    const events = await pollUntil(
      'the limit event',
      () => limitEvents(a.session_id),
      (e) => e.length > 0,
      100,
    );
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ resource: 'pids', limit: LIMIT });

    // Another session starts and runs processes and code; the limited one does too, its sleeps gone.
    const b = await t.client.browsers.create({ headless: true, timeout_seconds: 300 });
    expect(await echo(b.session_id)).toBe('still here');
    expect(pidsGroupOf(t.engine.services.sessions.get(b.session_id)!.browser!.pid)).not.toBe(group);
    expect(await echo(a.session_id)).toBe('still here');
    const page = await t.client.browsers.playwright.execute(a.session_id, { code: 'return await page.evaluate(() => 6 * 7);' });
    expect(page.result).toBe(42);

    await t.client.browsers.deleteByID(a.session_id);
    await t.client.browsers.deleteByID(b.session_id);
    await pollUntil(
      'the group removed',
      async () => fs.existsSync(group),
      (e) => !e,
      100,
    );
  }, 240_000);
});
