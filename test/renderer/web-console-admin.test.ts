/**
 * Web console, admin screens against a real engine: projects (create, rename, archive, limits,
 * delete refused with the server's 409 message), organization limits, API keys (create and
 * rotate with the plaintext shown once and working), audit logs (entries found, paging, export
 * downloaded as JSON Lines).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';

let c: Console;

beforeAll(async () => {
  c = await openConsole();
  await c.signIn();
});
afterAll(async () => {
  await c?.close();
});

describe('web console: admin', () => {
  it('creates, renames, archives and limits a project; a non-empty project is not deleted', async () => {
    const { page, te } = c;
    await page.keyboard.press('g');
    await page.keyboard.press('p');
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.getByLabel('New project name').fill('ui-proj');
    await page.getByRole('button', { name: 'Create project' }).click();
    const row = (name: string) => page.getByRole('row').filter({ hasText: name });
    await row('ui-proj').waitFor();

    await row('ui-proj').getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename project' });
    await rename.getByLabel('Project name').fill('ui-renamed');
    await rename.getByRole('button', { name: 'Save' }).click();
    await row('ui-renamed').waitFor();

    await row('ui-renamed').getByRole('button', { name: 'Archive' }).click();
    await row('ui-renamed').getByText('archived', { exact: true }).waitFor();

    await row('ui-renamed').getByRole('button', { name: 'Limits' }).click();
    const limits = page.getByRole('dialog', { name: 'Limits of ui-renamed' });
    await limits.getByLabel('Max concurrent sessions').fill('3');
    await c.screenshot('project-limits-dialog');
    await limits.getByRole('button', { name: 'Save limits' }).click();
    await limits.waitFor({ state: 'detached' });

    const project = (await te.client.projects.list()).getPaginatedItems().find((p) => p.name === 'ui-renamed')!;
    expect(project.status).toBe('archived');
    expect((await te.client.projects.limits.retrieve(project.id)).max_concurrent_sessions).toBe(3);

    // A project with a key in it cannot be deleted: the 409's message is shown.
    await te.client.apiKeys.create({ name: 'in-project', project_id: project.id });
    await row('ui-renamed').getByRole('button', { name: 'Delete' }).click();
    const del = page.getByRole('dialog', { name: /Delete project/ });
    await del.getByRole('button', { name: 'Delete' }).click();
    const shown = await del.getByRole('alert').textContent();
    const api = await te.api(`/org/projects/${project.id}`, { method: 'DELETE' });
    if (api.status === 409) expect(shown).toBe(((await api.json()) as { message: string }).message);
    else expect.fail(`expected the engine to refuse deleting a project holding a key, got ${api.status}`);
    await c.screenshot('projects-delete-refused');
    await del.getByRole('button', { name: 'Cancel' }).click();
    await c.screenshot('projects');
  });

  it('edits organization limits', async () => {
    const { page, te } = c;
    await page.goto(te.url + '/#/admin/limits');
    const field = page.getByLabel('Default max concurrent sessions per project');
    await field.fill('4');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await te.client.organization.limits.retrieve()).default_project_max_concurrent_sessions).toBe(4);
    await c.screenshot('org-limits');
  });

  it('creates and rotates an API key, showing each plaintext once', async () => {
    const { page, te } = c;
    await page.goto(te.url + '/#/admin/api-keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create API key' });
    await create.getByLabel('Key name').fill('ui-key');
    await create.getByLabel('Expires after (days)').fill('30');
    await create.getByRole('button', { name: 'Create key' }).click();
    const reveal = page.getByRole('dialog', { name: 'API key ui-key created' });
    const key = await reveal.getByLabel('New API key').inputValue();
    expect(key).toMatch(/^bdk_/);
    await c.screenshot('api-key-created');
    // The shown key works.
    expect((await te.clientWith({ apiKey: key }).projects.list()).getPaginatedItems().length).toBeGreaterThan(0);
    await reveal.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(key);
    await page.getByRole('row').filter({ hasText: 'ui-key' }).waitFor();

    await page.getByRole('row').filter({ hasText: 'ui-key' }).getByRole('button', { name: 'Rotate' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate ui-key' });
    await rotate.getByLabel('Old key stops working in (days)').fill('0');
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = page.getByRole('dialog', { name: 'API key ui-key rotated' });
    const newKey = await rotated.getByLabel('New API key').inputValue();
    expect(newKey).not.toBe(key);
    expect((await te.clientWith({ apiKey: newKey }).projects.list()).getPaginatedItems().length).toBeGreaterThan(0);
    await expect(te.clientWith({ apiKey: key }).projects.list()).rejects.toMatchObject({ status: 401 });
    await rotated.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(newKey);
    await page.getByLabel('Search keys').fill('ui-key');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'ui-key' }).count()).toBeGreaterThan(0);
    await c.screenshot('api-keys');
  });

  it('finds audit entries, pages through them and exports them', async () => {
    const { page, te } = c;
    // Enough requests for more than one page (50 a page).
    for (let i = 0; i < 55; i++) await te.api(`/org/projects?limit=1&offset=${i}`);
    // The audit writer stores rows from a queue a moment after the response; the UI search
    // must not run before all 55 are stored (it then saw 52 under load).
    const stored = async () => {
      let n = 0;
      const window = { start: new Date(Date.now() - 600_000).toISOString(), end: new Date(Date.now() + 60_000).toISOString() };
      for await (const e of te.client.auditLogs.list({ ...window, method: 'GET', search: '/org/projects?limit=1&offset=' }))
        if (e.path.startsWith('/org/projects?limit=1&offset=')) n++;
      return n;
    };
    await expect.poll(stored, { timeout: 30_000, interval: 200 }).toBe(55);
    await page.goto(te.url + '/#/admin/audit-logs');
    await page.getByRole('heading', { name: 'Audit logs' }).waitFor();
    await page.getByLabel('Search', { exact: true }).fill('/org/projects');
    await page.getByLabel('Method', { exact: true }).selectOption('GET');
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('table.audit tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(55);
    expect(await rows.first().textContent()).toContain('/org/projects');
    await page.locator('main').evaluate((m) => m.scrollTo(0, 0));
    await c.screenshot('audit-logs');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'bd-audit-')), download.suggestedFilename());
    await download.saveAs(file);
    expect(download.suggestedFilename()).toMatch(/^audit-logs-.*\.jsonl$/);
    const lines = (await fs.readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string; method: string });
    expect(lines.filter((l) => l.method === 'GET' && l.path.startsWith('/org/projects')).length).toBeGreaterThanOrEqual(55);
    await fs.rm(path.dirname(file), { recursive: true, force: true });
  });
});
