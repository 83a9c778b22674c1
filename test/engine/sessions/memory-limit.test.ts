/**
 * A session's `memory` is enforced where the jail can limit memory (issue 15 item 2): a root
 * engine with a usable memory controller (this machine: cgroup v1 `memory`) starts every
 * process of the session's jails — bwrap, Chromium and its children, Xvfb, session processes,
 * executors — in one memory group per session, limited to the session's memory. A process that
 * allocates past it is OOM-killed inside the jail; the engine, the API and the session's browser
 * stay up. The group exists while the session runs and is gone once it ends; `/healthz` names
 * the method.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { descendants, cmdlineOf } from '../../helpers/proc.js';
import { pollUntil } from '../../helpers/poll-until.js';

const GiB = 1024 ** 3;

let t: TestEngine;
/** A group left by an engine that died (its pid is gone), planted before this engine starts. */
let leftover: string | undefined;
beforeAll(async () => {
  const own = memoryGroupOf(process.pid);
  if (own) {
    leftover = path.join(own, `bd-mem-${spawnSync('true').pid}-leftover`);
    fs.mkdirSync(leftover);
  }
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
  if (leftover && fs.existsSync(leftover)) fs.rmdirSync(leftover);
});

/** The memory cgroup (host path) a process is in: v1 `memory` hierarchy or the v2 one. */
function memoryGroupOf(pid: number): string | undefined {
  const lines = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('memory'));
  if (v1) return path.join('/sys/fs/cgroup/memory', v1.split(':').slice(2).join(':'));
  const v2 = lines.find((l) => l.startsWith('0::'));
  return v2 ? path.join('/sys/fs/cgroup', v2.slice(3)) : undefined;
}

const runtime = (id: string) => t.engine.services.sessions.get(id)!;

async function create(body: Record<string, unknown>): Promise<{ session_id: string; memory: string }> {
  // Raw HTTP: `memory` is newer than the SDK installed here (0.84).
  const res = await t.api('/browsers', { method: 'POST', json: { timeout_seconds: 300, ...body } });
  expect(res.status).toBe(200);
  return (await res.json()) as { session_id: string; memory: string };
}

describe('session memory is enforced by a memory cgroup', () => {
  it('healthz names the method; this root engine on a memory controller enforces', async () => {
    const health = (await (await fetch(`${t.url}/healthz`)).json()) as { memory: { method: string } };
    // The test machine runs the engine as root with cgroup v1 memory: enforcement must be on.
    expect(['cgroup-v1', 'cgroup-v2']).toContain(health.memory.method);
    // The probe removed the empty group of the dead engine.
    expect(leftover && fs.existsSync(leftover)).toBe(false);
  });

  it("a headful session's whole jail is in a group limited to its memory, removed at the end", async () => {
    const s = await create({ headless: false, memory: '16GiB' });
    expect(s.memory).toBe('16GiB');
    const rt = runtime(s.session_id);
    const group = memoryGroupOf(rt.browser!.pid)!;
    expect(path.basename(group)).toContain(s.session_id);
    const limitFile = fs.existsSync(path.join(group, 'memory.max')) ? 'memory.max' : 'memory.limit_in_bytes';
    expect(Number(fs.readFileSync(path.join(group, limitFile), 'utf8'))).toBe(16 * GiB);
    // Chromium's children, Xvfb, a session process and an executor are all in it.
    const renderer = descendants(rt.browser!.pid).find((p) => cmdlineOf(p).includes('--type=renderer'));
    expect(renderer).toBeDefined();
    expect(memoryGroupOf(renderer!)).toBe(group);
    expect(memoryGroupOf(rt.xvfbPid!)).toBe(group);
    const proc = await t.client.browsers.process.spawn(s.session_id, { command: 'sh', args: ['-c', 'exec sleep 6543'] });
    const sleeper = await pollUntil(
      'the session process',
      async () => fs.readdirSync('/proc').find((p) => /^\d+$/.test(p) && cmdlineOf(Number(p)) === 'sleep 6543 '),
      (p) => !!p,
      50,
    );
    expect(memoryGroupOf(Number(sleeper))).toBe(group);
    const r = await t.client.browsers.playwright.execute(s.session_id, { code: 'return await page.evaluate(() => 6 * 7);' });
    expect(r.success).toBe(true);
    const inGroup = fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    expect(inGroup.some((p) => cmdlineOf(p).includes('code-runner-child.mjs'))).toBe(true);
    await t.client.browsers.process.kill(proc.process_id!, { id: s.session_id, signal: 'KILL' });

    await t.client.browsers.deleteByID(s.session_id);
    await pollUntil(
      'the group removed',
      async () => fs.existsSync(group),
      (e) => !e,
      50,
    );
  });

  it('a process allocating past the limit is OOM-killed in the jail; engine, API and browser stay up', async () => {
    const s = await create({ headless: true });
    expect(s.memory).toBe('1GiB');
    const group = memoryGroupOf(runtime(s.session_id).browser!.pid)!;
    expect(Number(fs.readFileSync(path.join(group, fs.existsSync(path.join(group, 'memory.max')) ? 'memory.max' : 'memory.limit_in_bytes'), 'utf8'))).toBe(GiB);
    // 3 GiB written (not just reserved), 256 MiB at a time; without the limit this finishes and prints.
    const r = await t.client.browsers.process.exec(s.session_id, {
      command: 'python3',
      args: ['-c', "chunks = [b'\\x01' * (256 << 20) for _ in range(12)]\nprint('allocated', sum(map(len, chunks)))"],
      timeout_sec: 120,
    });
    expect(r.stdout_b64 ? Buffer.from(r.stdout_b64, 'base64').toString() : '').not.toContain('allocated');
    expect(r.exit_code).not.toBe(0);
    // The kernel says it: an OOM kill in this session's group (v1 memory.oom_control, v2 memory.events).
    const events = fs.readFileSync(path.join(group, fs.existsSync(path.join(group, 'memory.events')) ? 'memory.events' : 'memory.oom_control'), 'utf8');
    expect(Number(/^oom_kill (\d+)$/m.exec(events)?.[1])).toBeGreaterThan(0);
    // The engine answers, the session's browser still runs, and the session takes new work.
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    const page = await t.client.browsers.playwright.execute(s.session_id, { code: 'return await page.evaluate(() => 6 * 7);' });
    expect(page.result).toBe(42);
    const echo = await t.client.browsers.process.exec(s.session_id, { command: 'sh', args: ['-c', 'echo still here'] });
    expect(Buffer.from(echo.stdout_b64 ?? '', 'base64').toString()).toContain('still here');
    await t.client.browsers.deleteByID(s.session_id);
    await pollUntil(
      'the group removed',
      async () => fs.existsSync(group),
      (e) => !e,
      50,
    );
  });
});
