/**
 * Web console, Telemetry and Code panes: enable the console category on a running session from
 * the pane (PATCH), see the page's console.log lines arrive live, filter them by category and
 * by search, pause (events are held, not shown) and resume; run Playwright code and see its
 * JSON result, stdout and a failure's error message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { createSession, openPane, startLocalSite, type LocalSite, TEST_TIMEOUT, shown } from './session-panes-helpers.js';

let c: Console;
let site: LocalSite;
let sessionId: string;

beforeAll(async () => {
  site = await startLocalSite();
  c = await openConsole();
  sessionId = (await createSession(c, { start_url: `${site.url}/console` })).session_id;
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await site?.close();
}, TEST_TIMEOUT);

describe('session pane: telemetry', () => {
  it(
    'enables console telemetry, shows page logs live, filters, searches, pauses and resumes',
    async () => {
      const { page, te } = c;
      await openPane(c, sessionId, 'telemetry', 'Telemetry');
      await page.getByText('Recorded categories').click();
      await page.getByLabel('Record console').check();
      await page.getByRole('button', { name: 'Save categories' }).click();
      await expect.poll(async () => (await te.client.browsers.retrieve(sessionId)).telemetry?.browser?.console?.enabled, { timeout: 90_000 }).toBe(true);

      const rows = page.locator('.event-row[data-category="console"]');
      await expect.poll(() => rows.count(), { timeout: 90_000 }).toBeGreaterThan(1);
      expect(await rows.first().textContent()).toMatch(/console_log.*tick-marker-\d+/);
      await c.screenshot('session-pane-telemetry');

      // Category filter: hiding console hides its rows, showing it brings them back.
      await page.getByLabel('Show console').uncheck();
      await expect.poll(() => rows.count()).toBe(0);
      await page.getByLabel('Show console').check();
      await expect.poll(() => rows.count()).toBeGreaterThan(0);

      // Search narrows to matching events.
      const first = (await rows.first().locator('.event-summary').textContent())!.trim();
      await page.getByLabel('Search events').fill(first);
      await expect.poll(async () => (await page.locator('.event-row .event-summary').allTextContents()).every((t) => t.includes(first))).toBe(true);
      await page.getByLabel('Search events').fill('');

      // Pause: new events are held (the button counts them) and the list does not grow.
      await page.getByRole('button', { name: /^Pause/ }).click();
      const before = await rows.count();
      await expect
        .poll(async () => Number((await page.getByRole('button', { name: /^Resume/ }).textContent())!.match(/\((\d+) new\)/)?.[1] ?? 0), { timeout: 90_000 })
        .toBeGreaterThan(0);
      expect(await rows.count()).toBe(before);
      await page.getByRole('button', { name: /^Resume/ }).click();
      await expect.poll(() => rows.count()).toBeGreaterThan(before);

      // Expanding a row shows the envelope JSON. New ticks keep arriving on top, so the expanded
      // row is found by its content rather than by position.
      await rows.first().locator('.event-line').click();
      const json = JSON.parse((await page.locator('.event-row pre.event-json').first().textContent())!);
      expect(json.event).toMatchObject({ category: 'console', type: 'console_log' });
      expect(typeof json.seq).toBe('number');
    },
    TEST_TIMEOUT,
  );
});

describe('session pane: code', () => {
  it(
    'runs Playwright code with Ctrl+Enter and shows result, stdout and errors',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'code', 'Code');
      const editor = page.getByLabel('Playwright code');
      await editor.fill(
        `console.log('stdout-marker');\nawait page.setContent('<h1>code pane</h1>');\nreturn { sum: 6 * 7, heading: await page.textContent('h1') };`,
      );
      await editor.press('Control+Enter');
      const result = page.getByRole('region', { name: 'Run result' });
      await shown(c, result);
      await expect.poll(() => result.getByText('success').count()).toBe(1);
      expect(JSON.parse((await result.locator('pre.result-json').textContent())!)).toEqual({ sum: 42, heading: 'code pane' });
      expect(await result.locator('pre.output').nth(1).textContent()).toContain('stdout-marker');
      await c.screenshot('session-pane-code');

      await editor.fill(`throw new Error('boom-from-pane');`);
      await page.getByRole('button', { name: /^Run/ }).click();
      await shown(c, result.getByRole('alert'));
      expect(await result.getByRole('alert').textContent()).toContain('boom-from-pane');
      expect(await result.getByText('failed').count()).toBe(1);
    },
    TEST_TIMEOUT,
  );
});
