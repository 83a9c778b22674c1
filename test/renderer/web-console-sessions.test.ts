/**
 * Web console, sessions: sign in with an API key (kept out of storage and URLs), create a
 * session from the dialog (real Chromium), see it in the live list, have a bad option rejected
 * with the server's message, open its pane, delete several at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';

let c: Console;

beforeAll(async () => {
  c = await openConsole();
});
afterAll(async () => {
  await c?.close();
});

describe('web console: sign-in and sessions', () => {
  it('serves the UI and its assets at /', async () => {
    const res = await fetch(c.te.url + '/');
    expect(res.status).toBe(200);
    const html = await res.text();
    const asset = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeTruthy();
    const js = await fetch(`${c.te.url}/${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
  });

  it('refuses a wrong key with the server message, then signs in without storing the key', async () => {
    const { page, te } = c;
    await page.goto(te.url + '/');
    await page.getByLabel('API key').fill('bdk_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('invalid or expired API key');
    await c.screenshot('sign-in-refused');

    await c.signIn();
    const leaks = await page.evaluate(() => JSON.stringify({ l: { ...localStorage }, s: { ...sessionStorage }, u: location.href, c: document.cookie }));
    expect(leaks).not.toContain(te.adminKey);
    expect(page.url()).not.toContain(te.adminKey);
    const cookie = (await c.context.cookies()).find((k) => k.name === 'bd_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.value).not.toContain(te.adminKey);
    await expect.poll(() => page.getByRole('heading', { name: 'No running sessions' }).count()).toBe(1);
    await c.screenshot('sessions-empty');
  });

  it('shows the server message when an option is rejected', async () => {
    const { page } = c;
    await page.keyboard.press('n');
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.waitFor();
    await dialog.getByLabel('Inactivity timeout (seconds)').fill('5');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/timeout_seconds/);
    await c.screenshot('create-session-rejected');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('creates sessions from the dialog, lists them, opens one and deletes several at once', async () => {
    const { page, te } = c;
    for (const name of ['ui-alpha', 'ui-beta']) {
      await page.getByRole('button', { name: /New session/ }).click();
      const dialog = page.getByRole('dialog', { name: 'New session' });
      await dialog.getByLabel('Name', { exact: true }).fill(name);
      await dialog.getByLabel('Headless').check();
      await dialog.getByLabel('Width').fill('1024');
      await dialog.getByLabel('Height').fill('768');
      await dialog.getByLabel('Inactivity timeout (seconds)').fill('300');
      await dialog.getByRole('button', { name: '+ Add tag' }).click();
      await dialog.getByLabel('Tag 1 key').fill('team');
      await dialog.getByLabel('Tag 1 value').fill(name === 'ui-alpha' ? 'qa' : 'ops');
      if (name === 'ui-alpha') await c.screenshot('create-session-dialog');
      await dialog.getByRole('button', { name: 'Create session' }).click();
      // The dialog navigates to the new session's pane.
      await page.getByRole('heading', { name: new RegExp(name) }).waitFor({ timeout: 30_000 });
      await page.goto(te.url + '/#/sessions');
    }
    const fromApi = await te.client.browsers.list();
    const created = fromApi.getPaginatedItems().filter((s) => s.name?.startsWith('ui-'));
    expect(created.map((s) => s.name).sort()).toEqual(['ui-alpha', 'ui-beta']);
    const alpha = created.find((s) => s.name === 'ui-alpha')!;
    expect(alpha.viewport).toMatchObject({ width: 1024, height: 768 });
    expect(alpha.tags).toEqual({ team: 'qa' });
    expect(alpha.headless).toBe(true);
    expect(alpha.timeout_seconds).toBe(300);

    await expect.poll(() => page.getByRole('link', { name: 'ui-alpha' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('link', { name: 'ui-beta' }).count()).toBe(1);
    // Tag filter narrows the list on the server side.
    await page.getByLabel('Tag filter').fill('team=ops');
    await expect.poll(() => page.getByRole('link', { name: 'ui-alpha' }).count()).toBe(0);
    await expect.poll(() => page.getByRole('link', { name: 'ui-beta' }).count()).toBe(1);
    await page.getByLabel('Tag filter').fill('');
    await expect.poll(() => page.getByRole('link', { name: 'ui-alpha' }).count()).toBe(1);
    await c.screenshot('sessions-list');

    // Newer Kernel fields (spec §2) show in the overview: a location override applied by PATCH.
    const patched = await te.api(`/browsers/${alpha.session_id}`, { method: 'PATCH', json: { location: { timezone: 'Europe/Berlin', locale: 'de-DE' } } });
    expect(patched.status).toBe(200);
    const full = (await patched.json()) as { region: string; memory: string };
    await page.getByRole('link', { name: 'ui-alpha' }).click();
    // A session opens on its live view (which carries the live-view token by design).
    await page.getByRole('tab', { name: 'Live view', selected: true }).waitFor();
    await page.getByRole('tab', { name: 'Overview' }).click();
    await page.getByRole('tab', { name: 'Overview', selected: true }).waitFor();
    await expect.poll(() => page.getByText(alpha.session_id).count()).toBeGreaterThan(0);
    expect(await page.content()).not.toMatch(/jwt=ey/);
    const props = page.locator('.overview dl.props').first();
    await expect.poll(() => props.textContent()).toContain('Europe/Berlin (override) · de-DE (override)');
    const text = (await props.textContent()) ?? '';
    expect(text).toContain(`Region${full.region}`);
    expect(text).toContain(`Memory${full.memory}`);
    expect(text).toContain('Proxydefault');
    await c.screenshot('session-pane-overview');
    await page.getByRole('tab', { name: 'Live view' }).click();
    await page.locator('iframe[title="Live view"]').waitFor();

    await page.goto(te.url + '/#/sessions');
    await page.getByLabel('Select ui-alpha').check();
    await page.getByLabel('Select ui-beta').check();
    await page.getByRole('button', { name: 'Delete 2 selected' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 sessions?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('link', { name: /ui-/ }).count(), { timeout: 20_000 }).toBe(0);
    const after = (await te.client.browsers.list()).getPaginatedItems();
    expect(after.filter((s) => s.name?.startsWith('ui-'))).toEqual([]);
    await page.getByLabel('Status').selectOption('deleted');
    await expect.poll(() => page.getByRole('link', { name: 'ui-alpha' }).count()).toBe(1);
    await c.screenshot('sessions-deleted-filter');
  });
});
