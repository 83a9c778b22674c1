/**
 * Every screen of the console fits at 1024×700 and 1280×800 (issue 28 item 8), in real Chromium
 * against a real engine holding some data (a running and an ended session, a project, a key, a
 * proxy, a profile, an auth connection, a credential, audit entries). The screens are not listed
 * here: they are read from the console itself — every link of the sidebar's navigation, and every
 * tab of a session's view — so a screen added later is covered without touching this file.
 *
 * A screen fails on: a control (button, input, select, textarea, link, tab) that extends past
 * the viewport horizontally or past an ancestor that clips or scrolls it horizontally (reachable
 * only by scrolling a box sideways, or not at all); a page wider than the viewport; and any
 * console error, uncaught page error, or 4xx/5xx answer to the console's own requests. Each
 * screen is saved under test-results/screens/layout-<screen>-<width>.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { openConsole, type Console } from './console-harness.js';
import { misfits } from './layout-check.js';

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
];

let c: Console;
let liveId: string;
let endedId: string;
/** Console errors, page errors and failed requests, by the screen that was showing. */
const problems: string[] = [];
let showing = '(sign-in)';

beforeAll(async () => {
  c = await openConsole();
  const { te, page } = c;
  const client = te.client;
  // Some data on every screen, so tables have rows and rows have their buttons.
  await client.projects.create({ name: 'layout-project' });
  await client.apiKeys.create({ name: 'layout-key' });
  await client.profiles.create({ name: 'layout-profile' });
  await client.auth.connections.create({ domain: 'login.layout.example', profile_name: 'layout-profile' });
  await client.proxies.create({ type: 'custom', name: 'layout-proxy', config: { host: 'proxy.layout.example', port: 3128 } });
  await client.credentials.create({ name: 'layout-login', domain: 'login.layout.example', values: { username: 'ann', password: 'layout-pw' } });
  const ended = await client.browsers.create({ headless: true });
  endedId = ended.session_id;
  await client.browsers.deleteByID(endedId);
  liveId = (await client.browsers.create({ headless: true, timeout_seconds: 900 })).session_id;

  page.setDefaultTimeout(30_000);
  // Watched from the first screen behind the sign-in (the sign-in form's own check answers 401 by design).
  await c.signIn();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${showing}: console error: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`${showing}: page error: ${e.message}`));
  page.on('request', (r) => {
    const api = r.url().startsWith(te.url) && ['fetch', 'xhr'].includes(r.resourceType());
    if (api && !(r.headers()['accept'] ?? '').includes('text/event-stream')) inFlight.add(r);
  });
  page.on('requestfinished', (r) => inFlight.delete(r));
  page.on('requestfailed', (r) => inFlight.delete(r));
  page.on('response', (r) => {
    if (r.url().startsWith(te.url) && r.status() >= 400)
      problems.push(`${showing}: ${r.request().method()} ${r.url().slice(te.url.length)} answered ${r.status()}`);
  });
}, 180_000);
afterAll(async () => {
  await c?.close();
});

/** Routes of the sidebar's navigation, as the console renders it. */
async function navRoutes(page: Page): Promise<string[]> {
  await page.goto(`${c.te.url}/#/sessions`);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.waitFor();
  const hrefs = await nav.locator('ul a[href^="#/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!.slice(1)));
  return [...new Set(hrefs)];
}

/** Routes of a session's tabs, as its view renders them. */
async function tabRoutes(page: Page, id: string): Promise<string[]> {
  await page.goto(`${c.te.url}/#/sessions/${id}`);
  const tabs = page.getByRole('tablist').getByRole('tab');
  await tabs.first().waitFor();
  return tabs.evaluateAll((ts) => ts.map((t) => t.getAttribute('href')!.slice(1)));
}

/** The console's API calls in flight (streams, which stay open, left out). */
const inFlight = new Set<Request>();

/** Shows a route and waits until its screen stopped loading: a heading, its API calls answered, no spinner in the content. */
async function show(page: Page, route: string): Promise<void> {
  showing = route;
  await page.goto(`${c.te.url}/#${route}`);
  await page.locator('main.content h1').first().waitFor();
  await expect.poll(() => inFlight.size, { timeout: 15_000 }).toBe(0);
  await page
    .waitForFunction(() => !document.querySelector('main.content [role="progressbar"]'), undefined, { timeout: 15_000 })
    // A pane that keeps a spinner (a stream waiting for data) is still measured.
    .catch(() => {});
}

describe('every screen fits at 1024×700 and 1280×800', () => {
  it('has no clipped or overflowing control and no console error on any screen', async () => {
    const { page } = c;
    const found: string[] = [];
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const routes = [...(await navRoutes(page)), ...(await tabRoutes(page, liveId)), ...(await tabRoutes(page, endedId))];
      expect(routes.length).toBeGreaterThan(10);
      for (const route of routes) {
        await show(page, route);
        const name = route
          .replace(liveId, 'live')
          .replace(endedId, 'ended')
          .replace(/[^a-z0-9]+/gi, '-')
          .replace(/^-|-$/g, '');
        await c.screenshot(`layout-${name}-${size.width}`);
        for (const m of await page.evaluate(misfits)) found.push(`${size.width}×${size.height} ${route}: ${m.control} ${m.why}`);
      }
    }
    showing = '(done)';
    expect({ found, problems }).toEqual({ found: [], problems: [] });
  }, 900_000);

  it("has no Settings screen on the web (the local engine settings are the desktop app's)", async () => {
    const { page, te } = c;
    await page.goto(`${te.url}/#/settings`);
    await page.getByRole('heading', { name: 'Nothing here' }).waitFor();
    expect(await page.getByRole('link', { name: 'Settings', exact: true }).count()).toBe(0);
  });
});
