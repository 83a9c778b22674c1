/**
 * Web console, the session view for support work (issue 28 items 1, 2, 5): copy buttons put the
 * tokenised CDP URL on the clipboard while the screen shows it redacted, the Connect card fills
 * a snippet for this session, the Code and REPL samples leave the user's tab where it is; a
 * console error and a 404 are highlighted, filtered ("Errors only") and counted on the Telemetry
 * tab and in the sessions list; Logs filter by search and level and download what they show; a
 * process without a TTY prints its lines without a staircase; once the session is deleted its
 * Processes, Logs and Telemetry show the recorded history under the "Session ended" banner, and
 * the Deleted view's "Select all" is not checked. Screens for docs/use/screenshots at 1280×800.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, openConsole, type Console } from './console-harness.js';
import { openPane, TEST_TIMEOUT, shown } from './session-panes-helpers.js';
import { startLocalServer, type LocalServer } from '../helpers/local-server.js';

const DOCS_SCREENS = path.resolve(import.meta.dirname, '../../docs/use/screenshots');
const PAGE = `<!doctype html><title>checkout</title><body><h1>checkout</h1><script>
  console.error('checkout failed badly');
  fetch('/missing.json').catch(() => {});
</script></body>`;

let c: Console;
let site: LocalServer;
let sessionId: string;
let cdpUrl: string;

/** Saves the page for the docs (1280×800, like the README's other screens) and for the test run. */
async function docsScreen(name: string): Promise<void> {
  await c.screenshot(name);
  if (process.env.DOCS_SCREENSHOTS) {
    await fs.mkdir(DOCS_SCREENS, { recursive: true });
    await c.page.screenshot({ path: path.join(DOCS_SCREENS, `${name}.png`) });
  }
}

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    if (req.url === '/missing.json') return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  c = await openConsole();
  await c.page.setViewportSize({ width: 1280, height: 800 });
  await c.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: c.te.url });
  const s = await c.te.client.browsers.create({
    headless: true,
    name: 'checkout-bot',
    timeout_seconds: 600,
    start_url: `${site.url}/`,
    telemetry: { browser: { console: { enabled: true }, network: { enabled: true } } },
  });
  sessionId = s.session_id;
  cdpUrl = s.cdp_ws_url;
}, TEST_TIMEOUT);
afterAll(async () => {
  await c?.close();
  await site?.close();
}, TEST_TIMEOUT);

const clipboard = (): Promise<string> => c.page.evaluate(() => navigator.clipboard.readText());

describe('session view: connect and steer', () => {
  it(
    'copies the tokenised CDP URL and a filled snippet; the Code and REPL samples do not navigate the tab',
    async () => {
      const { page, te } = c;
      // The icon every load asks for is public (it was a 401 in every visit's log).
      const icon = await fetch(`${te.url}/favicon.ico`);
      expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);

      await openPane(c, sessionId, 'overview', 'Overview');
      const endpoints = page.locator('.overview');
      await page.getByRole('button', { name: 'Copy CDP URL' }).click();
      // Each read of the session signs a fresh token: the copy carries one (whole), the screen none.
      const [cdpBase] = cdpUrl.split('jwt=');
      await expect.poll(clipboard).toMatch(new RegExp(`^${cdpBase.replace(/[?.]/g, '\\$&')}jwt=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
      const token = new URL(await clipboard()).searchParams.get('jwt')!;
      expect(await endpoints.textContent()).not.toContain(token.split('.')[2]);
      expect(await endpoints.textContent()).toContain(`${cdpBase}jwt=…`);

      const card = page.getByRole('region', { name: 'Connect' });
      await card.getByRole('tab', { name: 'Puppeteer' }).click();
      expect(await card.locator('pre').textContent()).toContain("browserWSEndpoint: 'ws://");
      await card.getByRole('button', { name: 'Copy Puppeteer snippet' }).click();
      await expect
        .poll(clipboard)
        .toMatch(new RegExp(`puppeteer\\.connect\\(\\{ browserWSEndpoint: '${cdpBase.replace(/[?.]/g, '\\$&')}jwt=[\\w-]+\\.[\\w-]+\\.[\\w-]+' \\}\\)`));
      await card.getByRole('tab', { name: 'Playwright' }).click();
      await card.scrollIntoViewIfNeeded();
      await docsScreen('session-connect');

      // The prefilled samples only read: the tab stays on the page under investigation.
      await openPane(c, sessionId, 'code', 'Code');
      await page.getByRole('button', { name: /^Run/ }).click();
      const result = page.getByRole('region', { name: 'Run result' });
      await shown(c, result.locator('pre.result-json'));
      expect(JSON.parse((await result.locator('pre.result-json').textContent())!)).toMatchObject({ title: 'checkout', url: `${site.url}/` });
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await shown(c, page.locator('.repl-cell pre.repl-stdout, .repl-cell pre.output').filter({ hasText: site.url }));
      const tabs = (await (await te.api(`/browsers/${sessionId}/cdp/json/list`)).json()) as Array<{ type: string; url: string }>;
      expect(tabs.filter((t) => t.type === 'page').map((t) => t.url)).toEqual([`${site.url}/`]);
    },
    TEST_TIMEOUT,
  );
});

describe('session view: errors at a glance', () => {
  it(
    'highlights the console error and the 404, filters to errors only, counts them on the tab and in the list',
    async () => {
      const { page } = c;
      await openPane(c, sessionId, 'telemetry', 'Telemetry');
      const errorRows = page.locator('.event-row[data-error]');
      await expect.poll(() => errorRows.count(), { timeout: 90_000 }).toBeGreaterThanOrEqual(2);
      const texts = await errorRows.allTextContents();
      expect(texts.some((t) => /console_error.*checkout failed badly/.test(t))).toBe(true);
      expect(texts.some((t) => /network_response.*404/.test(t))).toBe(true);
      expect(await page.locator('.event-row:not([data-error])').count()).toBeGreaterThan(0);

      await page.getByLabel('Errors only').check();
      await expect.poll(() => page.locator('.event-row:not([data-error])').count()).toBe(0);
      expect(await errorRows.count()).toBeGreaterThanOrEqual(2);
      const tabCount = page.getByRole('tab', { name: /Telemetry/ }).locator('.tab-count');
      await expect.poll(async () => Number(await tabCount.textContent()), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
      await docsScreen('session-errors');

      await page.goto(`${c.te.url}/#/sessions`);
      const row = page.getByRole('row').filter({ hasText: 'checkout-bot' });
      await expect.poll(async () => Number(await row.locator('.errors-cell').textContent()), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
    },
    TEST_TIMEOUT,
  );

  it(
    'filters Logs by search and level and downloads the lines shown as a .log file',
    async () => {
      const { page, te } = c;
      await te.client.browsers.fs.writeFile(sessionId, 'INFO started\nWARNING slow frame\nERROR upload failed needle\nERROR other\n', {
        path: '/work/app.log',
      });
      await openPane(c, sessionId, 'logs', 'Logs');
      await page.getByLabel('Source').selectOption('path');
      await page.getByLabel('File path').fill('/work/app.log');
      await page.getByRole('button', { name: 'Show' }).click();
      const count = page.getByLabel('Lines shown');
      await expect.poll(() => count.textContent(), { timeout: 90_000 }).toBe('4 shown');
      await page.getByLabel('Level').selectOption('error');
      await expect.poll(() => count.textContent()).toBe('2 shown');
      await page.getByLabel('Search log').fill('NEEDLE');
      await expect.poll(() => count.textContent()).toBe('1 shown');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download .log' }).click()]);
      expect(download.suggestedFilename()).toBe(`${sessionId}-app.log.log`);
      const text = (await downloadBytes(download)).toString('utf8');
      expect(text).toMatch(/^\S+ ERROR upload failed needle\n$/);
    },
    TEST_TIMEOUT,
  );

  it(
    "draws a process's lines without a staircase",
    async () => {
      const { page, te } = c;
      await te.client.browsers.process.spawn(sessionId, { command: 'sh', args: ['-c', "printf 'line-one\\nline-two\\n'; sleep 300"] });
      await openPane(c, sessionId, 'processes', 'Processes');
      const row = page.locator('table.processes tbody tr').filter({ hasText: 'line-one' });
      await row.getByRole('button', { name: 'Output' }).click();
      const rows = page.getByRole('log', { name: /Terminal: sh/ }).locator('.xterm-rows > div');
      await expect.poll(async () => (await rows.allTextContents()).some((t) => t.includes('line-two')), { timeout: 90_000 }).toBe(true);
      // LF without CR would start line two where line one ended.
      expect((await rows.allTextContents()).find((t) => t.includes('line-two'))!.startsWith('line-two')).toBe(true);
    },
    TEST_TIMEOUT,
  );
});

describe('session view: an ended session', () => {
  it(
    'shows the recorded processes, logs and telemetry under the ended banner; Select all stays unchecked in the Deleted view',
    async () => {
      const { page, te } = c;
      await te.client.browsers.process.exec(sessionId, { command: 'sh', args: ['-c', 'exit 3'] });
      await te.client.browsers.deleteByID(sessionId);

      await page.goto(`${te.url}/#/sessions`);
      await page.getByLabel('Status').selectOption('deleted');
      await page.getByRole('row').filter({ hasText: 'checkout-bot' }).waitFor();
      expect(await page.getByLabel('Select all').isChecked()).toBe(false);

      await openPane(c, sessionId, 'processes', 'Processes');
      await page.getByText(/Session ended .* \(deleted by api_key:.*\) — recorded history/).waitFor();
      const rows = page.locator('table.processes tbody tr');
      await expect.poll(() => rows.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
      await c.screenshot('session-ended-processes-table');
      const table = await rows.allTextContents();
      expect(table).toEqual(expect.arrayContaining([expect.stringMatching(/exit 3.*exited 3/), expect.stringContaining('line-one')]));
      expect(await page.getByRole('button', { name: 'Kill' }).count()).toBe(0);
      expect(await page.getByLabel('Command').count()).toBe(0);
      await docsScreen('session-ended-processes');

      // The service logs are read from the post-mortem, written once the teardown has finished.
      await expect
        .poll(async () => (await (await te.api(`/browsers/${sessionId}/logs/stream?source=supervisor&supervisor_process=session`)).text()).includes('"log"'), {
          timeout: 60_000,
        })
        .toBe(true);
      await openPane(c, sessionId, 'logs', 'Logs');
      await page.getByLabel('Service').selectOption('session');
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(async () => Number((await page.getByLabel('Lines shown').textContent())!.split(' ')[0]), { timeout: 60_000 }).toBeGreaterThan(0);
      await page.getByText('recorded log').waitFor();

      await openPane(c, sessionId, 'telemetry', 'Telemetry');
      await expect.poll(() => page.locator('.event-row[data-error]').count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
      await page.getByText('recorded history', { exact: true }).waitFor();
      await docsScreen('session-ended-telemetry');
    },
    TEST_TIMEOUT,
  );
});

describe('new session dialog', () => {
  it(
    'warns when the chosen proxy was unavailable at its last check, with the reason',
    async () => {
      const { page, te } = c;
      const dead = await startLocalServer(() => {});
      const port = Number(new URL(dead.url).port);
      await dead.close();
      const proxy = await te.client.proxies.create({ type: 'custom', name: 'dead-proxy', config: { host: '127.0.0.1', port } });
      expect(await te.client.proxies.check(proxy.id!)).toMatchObject({ status: 'unavailable' });
      await page.goto(`${te.url}/#/sessions`);
      await page.getByRole('button', { name: /New session/ }).click();
      await page.getByLabel('Proxy id').fill(proxy.id!);
      await page.getByText(/Proxy dead-proxy was unavailable at its last check: .*(refused|connect)/i).waitFor();
    },
    TEST_TIMEOUT,
  );
});
