/**
 * Web console, Credential providers screen against a real engine: the empty state, a missing
 * token refused with the server's message in the dialog, a 1Password provider added (its token
 * never shown again), its connection test and item list showing why it cannot be used (the real
 * SDK aimed at a closed local port — this machine cannot reach 1password.com), edited,
 * disabled, found by search and deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { closedPort, fakeServiceAccountToken } from '../engine/identity/onepassword-fixtures.js';

let c: Console;

beforeAll(async () => {
  c = await openConsole({ identity: { credentialProviderTimeoutMs: 5000 } });
  await c.signIn();
});
afterAll(async () => {
  await c?.close();
});

describe('web console: credential providers', () => {
  it('adds, tests, lists items of, edits, disables and deletes a provider; the token never comes back', async () => {
    const { page, te } = c;
    page.setDefaultTimeout(90_000);
    await page.getByRole('link', { name: 'Credential providers' }).click();
    await page.getByRole('heading', { name: 'No credential providers' }).waitFor();

    await page.getByRole('button', { name: 'Add provider' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add credential provider' });
    await dialog.getByLabel('Name').fill('ui-1p');
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/token is required/);

    const port = await closedPort();
    const token = fakeServiceAccountToken(`127.0.0.1:${port}`);
    await dialog.getByLabel('Service account token').fill(token);
    await dialog.getByLabel('Cache TTL (seconds)').fill('120');
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    const row = page.getByRole('row').filter({ hasText: 'ui-1p' }).first();
    await row.waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await row.textContent()).toContain('enabled');
    const [stored] = (await te.client.credentialProviders.list()).getPaginatedItems();
    expect(stored).toMatchObject({ name: 'ui-1p', provider_type: 'onepassword', enabled: true });
    expect(JSON.stringify(stored)).not.toContain(token);

    // The test answers why the provider cannot be used, in the expanded row.
    await row.getByRole('button', { name: 'Test ui-1p' }).click();
    const details = page.locator('.provider-details');
    await expect.poll(() => details.textContent()).toMatch(new RegExp(`cannot connect.*could not be reached at 127\\.0\\.0\\.1:${port}`));
    await details.getByRole('button', { name: 'Show items' }).click();
    await expect.poll(() => details.getByRole('alert').last().textContent()).toMatch(/could not be reached/);
    await c.screenshot('credential-providers');

    await row.getByRole('button', { name: 'Edit ui-1p' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit ui-1p' });
    expect(await edit.getByLabel('New token').inputValue()).toBe('');
    await edit.getByLabel('Name').fill('ui-1p-work');
    await edit.getByLabel('Priority').fill('5');
    await edit.getByRole('button', { name: 'Save' }).click();
    const renamed = page.getByRole('row').filter({ hasText: 'ui-1p-work' }).first();
    await renamed.waitFor();
    await expect.poll(async () => (await te.client.credentialProviders.retrieve(stored.id)).priority).toBe(5);

    await renamed.getByRole('button', { name: 'Disable ui-1p-work' }).click();
    await renamed.getByRole('button', { name: 'Enable ui-1p-work' }).waitFor();
    expect((await te.client.credentialProviders.retrieve(stored.id)).enabled).toBe(false);
    expect(await page.content()).not.toContain(token);

    // An auth connection takes its login from the provider, picked in the create dialog.
    await page.getByRole('link', { name: 'Auth connections' }).click();
    await page.getByRole('button', { name: 'New connection' }).first().click();
    const create = page.getByRole('dialog', { name: 'New auth connection' });
    await create.getByLabel('Domain', { exact: true }).fill('example.test');
    await create.getByLabel('Profile name').fill('ui-cp-profile');
    await create.getByLabel('Login values').selectOption('provider');
    await create.getByLabel('Provider', { exact: true }).selectOption('ui-1p-work');
    await create.getByLabel('Item path').fill('Private/Example');
    await create.getByRole('button', { name: 'Create connection' }).click();
    await page.getByRole('row').filter({ hasText: 'ui-cp-profile' }).first().waitFor();
    const [conn] = (await te.client.auth.connections.list()).getPaginatedItems();
    expect(conn).toMatchObject({ domain: 'example.test', profile_name: 'ui-cp-profile', credential: { provider: 'ui-1p-work', path: 'Private/Example' } });
    await te.client.auth.connections.delete(conn.id);
    // …or from whichever enabled provider ranks first with an item for the domain.
    await page.getByRole('button', { name: 'New connection' }).first().click();
    await create.getByLabel('Domain', { exact: true }).fill('example.test');
    await create.getByLabel('Profile name').fill('ui-cp-any');
    await create.getByLabel('Login values').selectOption('provider');
    await create.getByLabel('Provider', { exact: true }).selectOption({ label: 'Any, by priority (matching the domain)' });
    expect(await create.getByLabel('Item path').count()).toBe(0);
    await create.getByRole('button', { name: 'Create connection' }).click();
    await page.getByRole('row').filter({ hasText: 'ui-cp-any' }).first().waitFor();
    const [any] = (await te.client.auth.connections.list()).getPaginatedItems();
    expect(any).toMatchObject({ profile_name: 'ui-cp-any', credential: { auto: true } });
    expect(any.credential?.provider).toBeUndefined();
    await te.client.auth.connections.delete(any.id);
    await page.getByRole('link', { name: 'Credential providers' }).click();

    await page.getByLabel('Search credential providers').fill('nothing-like-this');
    await page.getByRole('heading', { name: 'No credential providers' }).waitFor();
    await page.getByLabel('Search credential providers').fill('ui-1p');
    await renamed.waitFor();

    await renamed.getByRole('button', { name: 'Delete ui-1p-work' }).click();
    await page
      .getByRole('dialog', { name: /Delete credential provider ui-1p-work/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('heading', { name: 'No credential providers' }).waitFor();
    expect((await te.client.credentialProviders.list()).getPaginatedItems()).toHaveLength(0);
  });
});
