/**
 * Apps across an engine restart on the same data dir: app versions and their code stay
 * deployed and invocable, an invocation's event history (stored, not only in memory) is
 * replayed, and an invocation that was running when the engine stopped is failed, its
 * process gone.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { deploy, hostPidsOfApp, logLines, processGone, readAll, sampleFiles } from './app-helpers.js';

let dataDir: string;
let te: TestEngine | undefined;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-apps-restart-'));
});

afterAll(async () => {
  await te?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('apps across a restart', () => {
  it('keeps deployments and history; fails what was running', async () => {
    te = await startTestEngine({ dataDir });
    const { final } = await deploy(te.client, sampleFiles(), { version: 'keep' });
    expect(final.status, final.status_reason).toBe('running');
    const failed = await te.client.invocations.create({ app_name: 'sample-app', action_name: 'fail', version: 'keep' });
    const running = await te.client.invocations.create({
      app_name: 'sample-app',
      action_name: 'sleep',
      version: 'keep',
      async: true,
      async_timeout_seconds: 600,
    });
    let pids: number[] = [];
    for await (const e of await te.client.invocations.follow(running.id)) {
      const m = String((e as { message?: string }).message ?? '');
      if (m.startsWith('pids ')) {
        pids = hostPidsOfApp(m.split(' ').slice(1).map(Number), te.dataDir);
        break;
      }
    }
    await te.stop();
    te = await startTestEngine({ dataDir });

    const after = await te.client.invocations.retrieve(running.id);
    expect(after.status).toBe('failed');
    expect(after.status_reason).toContain('engine stopped');
    expect(pids).toHaveLength(2);
    await expect.poll(() => pids.every(processGone), { timeout: 15_000 }).toBe(true);

    const history = await readAll(await te.client.invocations.follow(failed.id));
    expect(logLines(history)).toContain('about to fail');
    expect(history.filter((e) => e.event === 'invocation_state').map((e) => (e.invocation as { status: string }).status)).toEqual([
      'queued',
      'running',
      'failed',
    ]);

    expect((await te.client.apps.list({ version: 'keep' })).items).toHaveLength(1);
    const again = await te.client.invocations.create({ app_name: 'sample-app', action_name: 'echo', version: 'keep' });
    expect(again.status).toBe('succeeded');
  });
});
