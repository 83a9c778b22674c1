/**
 * The browser jail's doors are socat (sandbox/jail-helper-launch.ts): without it there is no
 * jail, and the engine says so instead of starting browsers it cannot reach; a door that dies
 * before it listens ends the launch with the reason, and nothing of the jail is left running.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import { processesWithMarker } from '../../../src/engine/runtime/chromium/process-group.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { deploy } from '../apps/app-helpers.js';

describe('the jail needs its doors', () => {
  let te: TestEngine | undefined;
  afterEach(async () => {
    delete process.env.BROWSERDECK_SOCAT;
    await te?.stop();
    te = undefined;
  });

  it('without socat: /healthz says there is no jail and why, and the engine does not serve other machines', async () => {
    process.env.BROWSERDECK_SOCAT = '/nonexistent/socat';
    te = await startTestEngine();
    const health = (await (await fetch(`${te.url}/healthz`)).json()) as { jail: { enabled: boolean; reason?: string } };
    expect(health.jail).toEqual({ enabled: false, reason: expect.stringContaining('BROWSERDECK_SOCAT=/nonexistent/socat is not an executable file') });

    const dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'bd-test-'));
    const engine = createEngine({ dataDir, host: '0.0.0.0', port: 0, logLevel: 'silent', print: () => {} });
    try {
      await expect(engine.start()).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 without the session jail \(BROWSERDECK_SOCAT=/);
    } finally {
      await engine.stop();
      await fs.promises.rm(dataDir, { recursive: true, force: true });
    }
  });

  it("without socat, apps still run in their jail (they need no doors): an action cannot read the engine's files", async () => {
    process.env.BROWSERDECK_SOCAT = '/nonexistent/socat';
    te = await startTestEngine();
    const keyFile = path.join(te.dataDir, 'admin-api-key');
    const probe = `import fs from 'node:fs';
import Kernel from '@onkernel/sdk';
new Kernel().app('probe').action('read', (_ctx, p) => { try { return fs.readFileSync(p.file, 'utf8'); } catch (e) { return 'ERR ' + e.code; } });`;
    const { final } = await deploy(te.client, { 'index.mjs': probe }, { entrypoint: 'index.mjs', version: 'v1' });
    expect(final.status, final.status_reason).toBe('running');
    const inv = await te.client.invocations.create({ app_name: 'probe', action_name: 'read', version: 'v1', payload: JSON.stringify({ file: keyFile }) });
    expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
    expect(inv.output).toMatch(/ERR /);
    expect(inv.output).not.toContain(te.adminKey);
  });

  it('with socat: the jail is on', async () => {
    te = await startTestEngine();
    const health = (await (await fetch(`${te.url}/healthz`)).json()) as { jail: { enabled: boolean } };
    expect(health.jail.enabled).toBe(true);
  });

  it('a door that exits before it listens fails the create with the reason, and leaves no process', async () => {
    // An executable that is no socat: both doors exit at once.
    process.env.BROWSERDECK_SOCAT = '/bin/false';
    te = await startTestEngine();
    const res = await fetch(`${te.url}/browsers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${te.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ headless: true }),
    });
    const body = (await res.json()) as { code: string; message: string };
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(body.message).toContain('a door (socat) exited before listening');
    const list = (await (await fetch(`${te.url}/browsers`, { headers: { authorization: `Bearer ${te.adminKey}` } })).json()) as unknown[];
    expect(list).toEqual([]);
    // bwrap's command line names the session's dirs under the data dir; what ran inside its PID
    // namespace ended with it.
    expect(await processesWithMarker(te.dataDir)).toEqual([]);
  });
});
