/**
 * Engine host: a real embedded engine on loopback with a per-launch key; stopping it ends
 * every session (no Chromium left) and the launch key dies with it. Its pages may reach the
 * machine's loopback (a local dev server), unlike a server engine's by default.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { EngineHost } from '../../src/main/engine-host.js';
import { PID_FILE } from '../../src/engine/store/engine-pid-file.js';
import { processesWith } from '../helpers/chromium-web.js';
import { startLocalServer } from '../helpers/local-server.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

describe('engine host', () => {
  it('starts on 127.0.0.1 with a launch key, and stop() leaves no browser and no valid key', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-test-host-'));
    dirs.push(dataDir);
    const host = new EngineHost({ dataDir, logLevel: 'silent' });
    const { url, apiKey } = await host.start();
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
    const adminKey = (await fs.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
    expect(apiKey).not.toBe(adminKey);

    const client = new Kernel({ apiKey, baseURL: url, maxRetries: 0 });
    const session = await client.browsers.create({ headless: true });
    expect(processesWith(dataDir).length).toBeGreaterThan(0);

    await host.stop();
    await host.stop(); // idempotent
    expect(host.current()).toBeNull();
    expect(processesWith(dataDir)).toEqual([]);
    await expect(fetch(url + '/healthz')).rejects.toThrow();

    // Next launch: the previous launch key is gone, a new one works, the session is not running.
    const next = new EngineHost({ dataDir, logLevel: 'silent' });
    const second = await next.start();
    try {
      await expect(new Kernel({ apiKey, baseURL: second.url, maxRetries: 0 }).projects.list()).rejects.toMatchObject({ status: 401 });
      const c2 = new Kernel({ apiKey: second.apiKey, baseURL: second.url, maxRetries: 0 });
      const live = (await c2.browsers.list()).getPaginatedItems().map((s) => s.session_id);
      expect(live).not.toContain(session.session_id);
    } finally {
      await next.stop();
    }
    expect(processesWith(dataDir)).toEqual([]);
  });

  it('deletes the launch key of a launch that never stopped', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-test-host-'));
    dirs.push(dataDir);
    const { createEngine } = await import('../../src/engine/engine.js');
    const crashed = createEngine({ dataDir, port: 0, ephemeralAdminKey: true, logLevel: 'silent', print: () => {} });
    await crashed.start();
    const staleKey = crashed.launchApiKey!;
    // Simulate a crash: close storage and server without running the launch-key stop hook.
    await crashed.context.store.close().catch(() => {});
    // A crashed engine's lock names a pid that is gone, which the next start takes over (engine-pid-file.ts); this
    // "crashed" engine shares the test's pid, so its lock goes by hand.
    await fs.rm(path.join(dataDir, PID_FILE));
    const host = new EngineHost({ dataDir, logLevel: 'silent' });
    try {
      const { url } = await host.start();
      await expect(new Kernel({ apiKey: staleKey, baseURL: url, maxRetries: 0 }).projects.list()).rejects.toMatchObject({ status: 401 });
    } finally {
      await host.stop();
      await crashed.stop().catch(() => {});
    }
  });

  it("lets its pages reach this machine's loopback (a local dev server), which a server engine refuses by default", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-test-host-'));
    dirs.push(dataDir);
    const dev = await startLocalServer({ '/': '<title>local dev server</title>' });
    const host = new EngineHost({ dataDir, logLevel: 'silent' });
    try {
      const { url, apiKey } = await host.start();
      const client = new Kernel({ apiKey, baseURL: url, maxRetries: 0 });
      const session = await client.browsers.create({ headless: true });
      const browser = await chromium.connectOverCDP(session.cdp_ws_url);
      const page = browser.contexts()[0].pages()[0];
      expect((await page.goto(`${dev.url}/`))?.status()).toBe(200);
      expect(await page.title()).toBe('local dev server');
      await browser.close();
    } finally {
      await host.stop();
      await dev.close();
    }
  });
});
