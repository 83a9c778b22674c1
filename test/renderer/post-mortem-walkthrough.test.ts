/**
 * Issue 28's walk-through, as support staff meet a failure: a project key's automation ran a
 * session that logged a console error, made a failing request and started a background process
 * (all through the official SDK), and the session was deleted; an app's invocation opened a
 * browser and failed. In the console (real Chromium, signed in with the project key) the operator
 * finds the session in the Deleted view with its end reason, reads its recorded Telemetry (the
 * error highlighted and counted), Processes (the SDK's process with its exit), Logs, Replays and
 * HAR; opens the failed invocation and follows it to its browser's replay; and sees the pool and
 * the profile the SDK made. Each screen is saved for the docs (`docs/use/screenshots/`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Kernel from '@onkernel/sdk';
import { downloadBytes, openConsole, type Console } from './console-harness.js';
import { startLocalServer, type LocalServer } from '../helpers/local-server.js';
import { waitFor } from '../helpers/chromium-web.js';
import { deploy } from '../engine/apps/app-helpers.js';

const DOCS_SCREENS = path.resolve(import.meta.dirname, '../../docs/use/screenshots');

const PAGE = `<!doctype html><html><head><title>Checkout</title></head><body><h1>Checkout</h1><script>
  console.error('checkout failed: card declined');
  fetch('/api/pay', { method: 'POST' }).catch(() => {});
</script></body></html>`;

/** An app as an automation developer writes one: it opens a browser, visits the page, and fails. */
const CHECKOUT_BOT = `import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright-core';
const kernel = new Kernel();
const app = kernel.app('checkout-bot');
app.action('checkout', async (_ctx: unknown, payload?: { url: string }) => {
  const session = await kernel.browsers.create({ headless: true });
  console.log('browser ' + session.session_id);
  const browser = await chromium.connectOverCDP(session.cdp_ws_url);
  const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  await page.goto(payload!.url);
  await browser.close();
  throw new Error('checkout failed: the pay button was not found');
});
`;

let c: Console;
let site: LocalServer;
let projectKey: string;
let sdk: Kernel;
let sessionId: string;
let invocationId: string;
let invocationBrowser: string;

async function screen(name: string): Promise<void> {
  await c.screenshot(name);
  fs.mkdirSync(DOCS_SCREENS, { recursive: true });
  await c.page.screenshot({ path: path.join(DOCS_SCREENS, `${name}.png`) });
}

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    if (req.url === '/api/pay') {
      res.writeHead(502, { 'content-type': 'application/json' });
      return res.end('{"error":"payment gateway down"}');
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
  c = await openConsole();
  const project = await c.te.client.projects.create({ name: 'checkout' });
  projectKey = (await c.te.client.apiKeys.create({ name: 'checkout-automation', project_id: project.id })).key;
  sdk = c.te.clientWith({ apiKey: projectKey });

  // The automation's session: a console error, a failing request, a background process, a replay.
  const s = await sdk.browsers.create({
    headless: true,
    name: 'checkout-run-17',
    timeout_seconds: 600,
    start_url: `${site.url}/checkout`,
    telemetry: { browser: { console: { enabled: true }, network: { enabled: true } } },
  } as never);
  sessionId = s.session_id;
  const replay = await sdk.browsers.replays.start(sessionId);
  const proc = await sdk.browsers.process.spawn(sessionId, { command: 'sh', args: ['-c', 'echo syncing orders; exit 4'] });
  await waitFor(async () => (await sdk.browsers.process.status(proc.process_id!, { id: sessionId })).state === 'exited', 30_000, 'process exit');
  const telemetry = async () =>
    (await (await c.te.api(`/browsers/${sessionId}/telemetry/events?limit=500`, { headers: { authorization: `Bearer ${projectKey}` } })).json()) as {
      event: { type: string; data?: { status?: number } };
    }[];
  await waitFor(
    async () => {
      const events = await telemetry();
      return events.some((e) => e.event.type === 'console_error') && events.some((e) => e.event.data?.status === 502);
    },
    30_000,
    'console error and 502 recorded',
  );
  await sdk.browsers.replays.stop(replay.replay_id, { id: sessionId });
  await sdk.browsers.deleteByID(sessionId);

  // The SDK's pool and profile.
  await sdk.browserPools.create({ name: 'checkout-pool', size: 1, headless: true } as never);
  await sdk.profiles.create({ name: 'checkout-profile' });

  // The failing invocation and its browser.
  const { final } = await deploy(sdk, { 'index.ts': CHECKOUT_BOT }, { version: 'v1' });
  expect(final.status, final.status_reason).toBe('running');
  const inv = await sdk.invocations.create({
    app_name: 'checkout-bot',
    action_name: 'checkout',
    version: 'v1',
    payload: JSON.stringify({ url: `${site.url}/checkout` }),
  });
  expect(inv.status).toBe('failed');
  invocationId = inv.id;
  invocationBrowser = ((await sdk.invocations.retrieve(inv.id)) as { browser_session_ids?: string[] }).browser_session_ids![0];
  expect(invocationBrowser).toBeTruthy();

  await c.signIn(projectKey);
}, 300_000);

afterAll(async () => {
  await c?.close();
  await site?.close();
});

describe('post-mortem in the console', { timeout: 120_000 }, () => {
  it('lists the deleted session in the Deleted view with its end reason', async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/sessions`);
    // Signed in with a project key: the sidebar names its project and offers no other.
    const picker = page.locator('.sidebar-field select');
    await expect.poll(() => picker.textContent()).toBe('checkout');
    expect(await picker.isDisabled()).toBe(true);
    await page.getByLabel('Status').selectOption('deleted');
    const row = page.getByRole('row').filter({ hasText: 'checkout-run-17' });
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('deleted');
    await expect.poll(async () => Number(await row.locator('.errors-cell').textContent()), { timeout: 30_000 }).toBe(2);
    await screen('post-mortem-deleted-list');
    await row.getByRole('link').first().click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'recorded history' }).textContent()).toMatch(/Session ended .* \(deleted by api_key:/);
  });

  it('shows the recorded telemetry with the error', async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/sessions/${sessionId}/telemetry`);
    // The console error and the 502 are highlighted and counted on the tab; "Errors only" keeps just them.
    const errorRows = page.locator('.event-row[data-error]');
    await expect
      .poll(() => errorRows.allTextContents(), { timeout: 30_000 })
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/console_error.*checkout failed: card declined/),
          expect.stringMatching(/network_response.*\/api\/pay 502/),
        ]),
      );
    const tabCount = page.getByRole('tab', { name: /Telemetry/ }).locator('.tab-count');
    await expect.poll(async () => Number(await tabCount.textContent()), { timeout: 30_000 }).toBe(2);
    await page.getByLabel('Errors only').check();
    await expect.poll(() => page.locator('.event-row:not([data-error])').count()).toBe(0);
    await screen('post-mortem-telemetry');
  });

  it("shows the SDK's process with its exit", async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/sessions/${sessionId}/processes`);
    const row = page.getByRole('row').filter({ hasText: 'echo syncing orders' });
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toContain('exited 4');
    await screen('post-mortem-processes');
  });

  it('shows the recorded logs', async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/sessions/${sessionId}/logs`);
    await page.getByLabel('Service').selectOption('session');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('.tab-panel .xterm-rows').textContent(), { timeout: 30_000 }).toMatch(/browser started/);
    await screen('post-mortem-logs');
  });

  it('lists the replay and downloads the HAR with the failing request', async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/sessions/${sessionId}/replays`);
    await expect.poll(() => page.locator('.tab-panel table.replays tbody tr').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await screen('post-mortem-replays');
    await page.goto(`${te.url}/#/sessions/${sessionId}/inspect`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /HAR/ }).first().click()]);
    const har = JSON.parse((await downloadBytes(download)).toString('utf8')) as {
      log: { entries: { request: { url: string }; response: { status: number } }[] };
    };
    expect(har.log.entries.find((e) => e.request.url.endsWith('/api/pay'))?.response.status).toBe(502);
  });

  it("follows the failed invocation to its browser's replay", async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/invocations/${invocationId}`);
    const details = page.getByRole('complementary', { name: `Invocation ${invocationId}` });
    await expect.poll(() => details.textContent(), { timeout: 30_000 }).toContain('the pay button was not found');
    const item = details.getByRole('listitem').filter({ hasText: invocationBrowser });
    await expect.poll(() => item.textContent()).toContain('ended');
    await screen('post-mortem-invocation');
    await item.getByRole('link', { name: 'Replay' }).click();
    await expect.poll(() => page.url()).toContain(`/sessions/${invocationBrowser}/replays`);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'recorded history' }).textContent()).toContain('invocation ended');
  });

  it('shows the pool and the profile the SDK made', async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/pools`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'checkout-pool' }).count(), { timeout: 30_000 }).toBe(1);
    await screen('post-mortem-pools');
    await page.goto(`${te.url}/#/profiles`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'checkout-profile' }).count(), { timeout: 30_000 }).toBe(1);
    await screen('post-mortem-profiles');
  });
});
