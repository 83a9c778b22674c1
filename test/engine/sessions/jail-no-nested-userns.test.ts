/**
 * On a kernel that refuses nested user namespaces (simulated with bwrap --disable-userns),
 * Chromium's own sandbox cannot start inside the jail: the browser still starts — jailed, with
 * --no-sandbox inside — the session's log says why and /healthz says it.
 *
 * @own-process the jail's probe of nested user namespaces runs once per process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { chromiumSandboxState } from '../../../src/engine/runtime/sandbox/session-jail.js';

describe('jail without nested user namespaces', () => {
  let te: TestEngine;
  beforeAll(async () => {
    process.env.BROWSERDECK_JAIL_NO_NESTED_USERNS = '1';
    te = await startTestEngine();
  });
  afterAll(async () => {
    delete process.env.BROWSERDECK_JAIL_NO_NESTED_USERNS;
    await te?.stop();
  });

  it('starts the browser jailed with --no-sandbox inside and says so in the session log', async () => {
    const s = await te.client.browsers.create({ headless: true });
    try {
      expect(chromiumSandboxState()).toBe('off');
      // …and /healthz tells the operator: jailed, without Chromium's own sandbox.
      expect(await (await fetch(`${te.url}/healthz`)).json()).toMatchObject({ jail: { enabled: true, chromium_sandbox: 'off' } });
      const lines: string[] = [];
      for await (const e of await te.client.browsers.logs.stream(s.session_id, { source: 'supervisor', supervisor_process: 'session', follow: false }))
        lines.push(e.message);
      expect(lines.join('\n')).toContain("Chromium's own sandbox cannot start inside the jail");
      // Still jailed: the data dir is not there for the browser.
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      const page = browser.contexts()[0].pages()[0];
      const text = await page.goto(`file://${path.join(te.dataDir, 'admin-api-key')}`).then(
        () => page.evaluate(() => document.body?.innerText ?? ''),
        () => '',
      );
      expect(text).not.toContain(fs.readFileSync(path.join(te.dataDir, 'admin-api-key'), 'utf8').trim());
      await browser.close();
    } finally {
      await te.client.browsers.deleteByID(s.session_id);
    }
  });
});
