/**
 * Web console, Telemetry pane settings: every category can be switched, `platform` included,
 * and `control.cdp.excluded_methods` is picked from the 38 browser-control methods; Save sends
 * them with PATCH and the session reports them back (and the pane shows what is stored). Real
 * Chromium for the session and for the console (playwright-core, /usr/bin/chromium).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { createSession, openPane, TEST_TIMEOUT } from './session-panes-helpers.js';

let c: Console;
let sessionId: string;

beforeAll(async () => {
  c = await openConsole();
  sessionId = (await createSession(c)).session_id;
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
}, TEST_TIMEOUT);

/** The session's stored `telemetry.browser`, read as raw HTTP (SDK 0.84 types neither `platform` nor `control.cdp`). */
const stored = async () => ((await (await c.te.api(`/browsers/${sessionId}`)).json()) as { telemetry?: { browser?: StoredTelemetry } }).telemetry?.browser;

/** The categories this test reads back. */
interface StoredTelemetry {
  platform?: { enabled: boolean };
  console: { enabled: boolean };
  control: { enabled: boolean; cdp: { excluded_methods: string[] } };
}

describe('session pane: telemetry settings', () => {
  it(
    'switches platform on and excludes CDP methods from control, saved with PATCH',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'telemetry', 'Telemetry');
      await page.getByText('Recorded categories').click();
      await page.getByLabel('Record platform').check();
      await page.getByText('CDP commands not reported').click();
      await page.getByLabel('Exclude Page.navigate', { exact: true }).check();
      await page.getByLabel('Exclude Input.insertText', { exact: true }).check();
      await c.screenshot('session-pane-telemetry-controls');
      await page.getByRole('button', { name: 'Save categories' }).click();
      await expect.poll(async () => (await stored())?.platform?.enabled, { timeout: 90_000 }).toBe(true);
      const after = await stored();
      expect([...after!.control.cdp.excluded_methods].sort()).toEqual(['Input.insertText', 'Page.navigate']);
      // Control itself stays on (its default); the other categories keep their defaults.
      expect(after!.control.enabled).toBe(true);
      expect(after!.console.enabled).toBe(false);

      // The pane shows what is stored; unticking one and saving again narrows the list.
      await expect.poll(() => page.locator('.excluded-methods summary').textContent()).toContain('Page.navigate');
      await page.getByLabel('Exclude Page.navigate', { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Save categories' }).click();
      await expect.poll(async () => (await stored())?.control?.cdp?.excluded_methods, { timeout: 90_000 }).toEqual(['Input.insertText']);
      expect((await stored())?.platform?.enabled).toBe(true);
    },
    TEST_TIMEOUT,
  );
});
