/**
 * Web console, Telemetry export screen against a real engine and a real OTLP receiver: the empty
 * state, a bad endpoint refused with the server's message in the dialog, a destination added with
 * a header (its value never shown again, only its name), its health after a session bound to it
 * delivered, delete refused while bound and done after the session ends. Screenshot for the README.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, saveScreen, type Console } from './console-harness.js';
import { startOtlpReceiver, type OtlpReceiver } from '../engine/telemetry-export/otlp-receiver.js';

let c: Console;
let recv: OtlpReceiver;

beforeAll(async () => {
  recv = await startOtlpReceiver();
  c = await openConsole({ env: { ...process.env, BROWSERDECK_OTLP_EXPORT_DELAY_MS: '200' } });
  await c.signIn();
});
afterAll(async () => {
  await c?.close();
  await recv?.close();
});

describe('web console: telemetry export', () => {
  it('adds a destination with a write-only header, shows its health, refuses delete while bound', async () => {
    const { page, te } = c;
    page.setDefaultTimeout(90_000);
    await page.getByRole('link', { name: 'Telemetry export' }).click();
    await page.getByRole('heading', { name: 'No telemetry destinations' }).waitFor();

    await page.getByRole('button', { name: 'Add destination' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add telemetry destination' });
    await dialog.getByLabel('Name', { exact: true }).fill('console-collector');
    await dialog.getByLabel('Endpoint', { exact: true }).fill(`${recv.url}/v1/logs`);
    await dialog.getByLabel('Header 1 value').fill('Bearer console-secret');
    await dialog.getByRole('button', { name: 'Add destination' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/signal path/);
    await dialog.getByLabel('Endpoint', { exact: true }).fill(recv.url);
    await dialog.getByRole('button', { name: 'Add destination' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: 'console-collector' }).first();
    await row.waitFor();
    expect(await row.textContent()).toContain('Authorization');
    expect(await row.textContent()).toContain('no deliveries yet');

    const [d] = await (await te.api('/telemetry/destinations')).json();
    const session = await (
      await te.api('/browsers', { method: 'POST', json: { headless: true, telemetry: { export: { otlp: { destination: { id: d.id } } } } } })
    ).json();
    await te.api(`/browsers/${session.session_id}`, { method: 'PATCH', json: { telemetry: { browser: { platform: { enabled: true } } } } });
    await te.api(`/browsers/${session.session_id}`);
    await expect.poll(() => recv.requests.some((r) => r.headers.authorization === 'Bearer console-secret'), { timeout: 60_000 }).toBe(true);
    await expect.poll(async () => (await (await te.api(`/telemetry/destinations/${d.id}`)).json()).last_success_at, { timeout: 60_000 }).toBeTruthy();
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'console-collector' }).filter({ hasText: 'delivering' }).first().waitFor();
    expect(await page.content()).not.toContain('console-secret');
    await saveScreen(page, 'telemetry-destinations');

    await page.getByRole('button', { name: 'Edit console-collector' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit console-collector' });
    expect(await edit.getByLabel('Header 1 value').inputValue()).toBe('');
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Delete console-collector' }).click();
    const confirm = page.getByRole('dialog', { name: /Delete telemetry destination/ });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => confirm.getByRole('alert').textContent()).toMatch(/exports to it/);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await te.api(`/browsers/${session.session_id}`, { method: 'DELETE' });
    await page.getByRole('button', { name: 'Delete console-collector' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'No telemetry destinations' }).waitFor();
  }, 240_000);
});
