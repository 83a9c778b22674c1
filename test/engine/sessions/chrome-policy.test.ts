/**
 * `chrome_policy` is written as a managed policy file inside the session's browser jail, where
 * Chromium reads mandatory policies: it takes effect (URLBlocklist blocks, other URLs load) and
 * Chromium lists it in chrome://policy. Policies of one session do not reach another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';

describe('chrome_policy', () => {
  let te: TestEngine;
  let web: LocalServer;
  beforeAll(async () => {
    te = await startTestEngine();
    web = await startLocalServer({ '/ok': '<title>ok</title>', '/blocked': '<title>blocked</title>' });
  });
  afterAll(async () => {
    await web?.close();
    await te?.stop();
  });

  it('applies the session policy (URLBlocklist), shows it in chrome://policy, and keeps it to that session', async () => {
    // The SDK 0.84 types chrome_policy as an object of policies; raw HTTP keeps the test about the wire.
    const res = await te.api('/browsers', { method: 'POST', json: { headless: true, chrome_policy: { URLBlocklist: [`${web.url}/blocked`] } } });
    expect(res.status).toBe(200);
    const s = (await res.json()) as { session_id: string; cdp_ws_url: string; chrome_policy?: unknown };
    const other = await te.client.browsers.create({ headless: true });
    const browser = await chromium.connectOverCDP(s.cdp_ws_url);
    const otherBrowser = await chromium.connectOverCDP(other.cdp_ws_url);
    try {
      const page = browser.contexts()[0].pages()[0];
      await page.goto(`${web.url}/ok`);
      expect(await page.title()).toBe('ok');
      const blocked = await page.goto(`${web.url}/blocked`).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
      expect(blocked).toContain('net::ERR_BLOCKED_BY_ADMINISTRATOR');
      // A fresh tab: the blocked navigation still commits its error page in the first one,
      // which would interrupt a navigation started there right away.
      const policyPage = await browser.contexts()[0].newPage();
      await policyPage.goto('chrome://policy');
      await expect.poll(() => policyPage.locator('text=URLBlocklist').count(), { timeout: 10_000 }).toBeGreaterThan(0);

      const otherPage = otherBrowser.contexts()[0].pages()[0];
      await otherPage.goto(`${web.url}/blocked`);
      expect(await otherPage.title()).toBe('blocked');
    } finally {
      await browser.close();
      await otherBrowser.close();
      await te.client.browsers.deleteByID(s.session_id);
      await te.client.browsers.deleteByID(other.session_id);
    }
  });
});
