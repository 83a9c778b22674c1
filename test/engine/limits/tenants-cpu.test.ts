/**
 * The tenants' CPU weight (runtime/sandbox/cpu-group.ts): every process of a session's jails — its
 * browser and a process it runs — is in this engine's tenants cpu group, which weighs as much as
 * one ordinary process, and the engine itself is not; `/healthz` says so. How much that buys the
 * engine under load is a figure for `npm run bench:lifecycle -- --concurrency=10`, not a test.
 * On a host without a cgroup v1 cpu hierarchy (pure v2) the engine runs none and health says so.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { descendants } from '../../helpers/proc.js';

/** The v1 cpu group (path inside the hierarchy) of a process, undefined on a v2-only host. */
function cpuGroupOf(pid: number): string | undefined {
  const line = fs
    .readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes('cpu'));
  return line?.split(':').slice(2).join(':');
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

const v1Cpu = process.getuid?.() === 0 && cpuGroupOf(process.pid) !== undefined;

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
});

describe("the tenants' CPU weight", () => {
  it.runIf(v1Cpu)("puts a session's browser and its processes in one group weighing one process, and not the engine", async () => {
    const health = (await (await t.api('/healthz')).json()) as { limits: { cpu: { method: string; tenants_shares: number } } };
    expect(health.limits.cpu).toEqual({ method: 'cgroup-v1', tenants_shares: 1024 });
    const group = `${cpuGroupOf(process.pid)!.replace(/\/$/, '')}/bd-cpu-${process.pid}-tenants`;
    expect(fs.readFileSync(`/sys/fs/cgroup/cpu${group}/cpu.shares`, 'utf8').trim()).toBe('1024');

    const s = await t.client.browsers.create({ headless: true });
    const proc = await t.client.browsers.process.spawn(s.session_id, { command: 'sleep', args: ['300'] });
    const browserPid = t.engine.services.sessions.get(s.session_id)!.browser!.pid;
    const jailed = [browserPid, ...descendants(browserPid)];
    expect(jailed.length).toBeGreaterThan(3);
    // The process and the jail's wrapper that runs it (`… -- sleep 300`).
    const sleepers = () => descendants(process.pid).filter((pid) => cmdline(pid).includes('sleep\0' + '300'));
    await expect.poll(() => sleepers().length, { timeout: 10_000 }).toBeGreaterThan(0);
    const sleeping = sleepers();
    for (const pid of [...jailed, ...sleeping]) expect({ pid, group: cpuGroupOf(pid) }).toEqual({ pid, group });
    expect(cpuGroupOf(process.pid)).not.toBe(group);
    await t.client.browsers.process.kill(proc.process_id!, { id: s.session_id, signal: 'KILL' });
    await t.client.browsers.deleteByID(s.session_id);
  });

  it.skipIf(v1Cpu)('says there is no tenants group where no cgroup v1 cpu hierarchy is usable', async () => {
    const health = (await (await t.api('/healthz')).json()) as { limits: { cpu: { method: string } } };
    expect(health.limits.cpu.method).toBe('none');
  });
});
