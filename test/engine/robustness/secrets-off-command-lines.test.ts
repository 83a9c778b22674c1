/**
 * Secrets a client hands to a jailed program — a session process's `env`, an app's deployment
 * `env_vars` and the `KERNEL_API_KEY` of its invocation — reach that program's environment but
 * never a command line: /proc/<pid>/cmdline is readable by every user of the host, an
 * environment only by its owner. They used to travel as bwrap `--setenv` arguments. Nor do they
 * become bwrap's own environment, where a client's LD_PRELOAD would load a library into bwrap
 * itself, on the host, as the engine's user.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { deploy } from '../apps/app-helpers.js';

let te: TestEngine;

beforeAll(async () => {
  te = await startTestEngine();
}, 60_000);
afterAll(async () => {
  await te?.stop();
});

/** Pids whose command line contains `needle`. */
function commandLinesWith(needle: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(needle)) out.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return out;
}

const text = (b64?: string | null) => Buffer.from(b64 ?? '', 'base64').toString();

describe('secrets on command lines', () => {
  it("a session process's env is in its environment, on no command line", async () => {
    const secret = `tok-${randomUUID()}`;
    const s = await te.client.browsers.create({ headless: true });
    const p = te.client.browsers.process;
    const held = await p.spawn(s.session_id, { command: 'sh', args: ['-c', 'sleep 30'], env: { API_TOKEN: secret } });
    try {
      await pollUntil(
        'the held process to run',
        async () => (await p.status(held.process_id!, { id: s.session_id })).state,
        (st) => st === 'running',
      );
      expect(commandLinesWith(secret)).toEqual([]);
      const r = await p.exec(s.session_id, { command: 'sh', args: ['-c', 'printf %s "$API_TOKEN"'], env: { API_TOKEN: secret } });
      expect(text(r.stdout_b64)).toBe(secret);
    } finally {
      await p.kill(held.process_id!, { id: s.session_id, signal: 'KILL' }).catch(() => {});
      await te.client.browsers.deleteByID(s.session_id);
    }
  });

  it("a client's LD_PRELOAD reaches only the jailed command, never bwrap on the host", async () => {
    // A real shared library at a host path the jail does not show (under the data dir): loaded
    // by anything that runs on the host with that LD_PRELOAD, never by the jailed command.
    const loaded = fs
      .readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((l) => l.split(/\s+/)[5])
      .find((f) => f && /\/lib[^/]*\.so[.\d]*$/.test(f) && !f.includes('node_modules'));
    expect(loaded, 'a shared library mapped by this process').toBeTruthy();
    const probe = path.join(te.dataDir, 'preload', `probe-${randomUUID()}.so`);
    fs.mkdirSync(path.dirname(probe), { recursive: true });
    fs.copyFileSync(loaded!, probe);
    const mappers = (): number[] =>
      fs
        .readdirSync('/proc')
        .filter((e) => /^\d+$/.test(e))
        .map(Number)
        .filter((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/maps`, 'utf8').includes(probe);
          } catch {
            return false;
          }
        });
    const s = await te.client.browsers.create({ headless: true });
    const p = te.client.browsers.process;
    const held = await p.spawn(s.session_id, { command: 'sh', args: ['-c', 'sleep 30'], env: { LD_PRELOAD: probe } });
    try {
      await pollUntil(
        'the held process to run',
        async () => (await p.status(held.process_id!, { id: s.session_id })).state,
        (st) => st === 'running',
      );
      expect(mappers()).toEqual([]);
    } finally {
      await p.kill(held.process_id!, { id: s.session_id, signal: 'KILL' }).catch(() => {});
      await te.client.browsers.deleteByID(s.session_id);
    }
  });

  it("an app's env_vars and invocation key are in its environment, on no command line", async () => {
    const secret = `dep-${randomUUID()}`;
    const app = `
import Kernel from '@onkernel/sdk';
const app = new Kernel().app('secrets');
app.action('hold', async (_ctx) => {
  await new Promise((r) => setTimeout(r, 4000));
  return { secret: process.env.DEPLOY_SECRET, key: (process.env.KERNEL_API_KEY ?? '').length > 0 };
});
`;
    const { final } = await deploy(te.client, { 'index.mjs': app }, { entrypoint: 'index.mjs', version: 's1', env: { DEPLOY_SECRET: secret } });
    expect(final.status, final.status_reason).toBe('running');
    const inv = await te.client.invocations.create({ app_name: 'secrets', action_name: 'hold', version: 's1', async: true });
    await pollUntil(
      'the app runner to start',
      async () => commandLinesWith('--browserdeck-app-runner').length,
      (n) => n > 0,
      100,
      50,
    );
    expect(commandLinesWith(secret)).toEqual([]);
    expect(commandLinesWith('KERNEL_API_KEY')).toEqual([]);
    const done = await pollUntil(
      'the invocation to finish',
      () => te.client.invocations.retrieve(inv.id),
      (i) => i.status !== 'running' && i.status !== 'queued',
    );
    expect(done.status, done.status_reason ?? '').toBe('succeeded');
    expect(JSON.parse(done.output!)).toEqual({ secret, key: true });
  }, 120_000);
});
