/**
 * Web console, Audit export screen against a real engine and a real S3-compatible server
 * (s3rver): the empty state, a bad bucket refused with the server's message in the dialog, a
 * destination added (paused; its secret never shown again), tested (probe upload), resumed,
 * its first delivery shown as the last delivery, paused and deleted. Windows of one second
 * without a hold, so a delivery is due as soon as the exporter runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConsole, type Console } from './console-harness.js';
import { startTestS3, type TestS3 } from '../helpers/s3-server.js';

let c: Console;
let s3: TestS3;

beforeAll(async () => {
  s3 = await startTestS3();
  c = await openConsole({
    env: {
      ...process.env,
      BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT: s3.endpoint,
      BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS: '0',
      BROWSERDECK_AUDIT_EXPORT_WINDOW_SECONDS: '1',
      BROWSERDECK_AUDIT_EXPORT_HOLD_SECONDS: '0',
      BROWSERDECK_AUDIT_EXPORT_PRINCIPAL_ARN: 'arn:aws:iam::999999999999:role/browserdeck',
    },
  });
  await c.signIn();
});
afterAll(async () => {
  await c?.close();
  await s3?.close();
});

describe('web console: audit export', () => {
  it('adds, tests, resumes, shows the last delivery, pauses and deletes a destination', async () => {
    const { page, te } = c;
    page.setDefaultTimeout(90_000);
    await page.getByRole('link', { name: 'Audit export' }).click();
    await page.getByRole('heading', { name: 'No audit export destinations' }).waitFor();

    await page.getByRole('button', { name: 'Add destination' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add audit export destination' });
    await dialog.getByLabel('Bucket').fill('Not_A_Bucket');
    await dialog.getByLabel('Prefix').fill('console/audit');
    await dialog.getByLabel('Role ARN').fill('arn:aws:iam::123456789012:role/audit-writer');
    await dialog.getByLabel('Access key id (optional)').fill('S3RVER');
    await dialog.getByLabel('Secret access key').fill('S3RVER');
    await dialog.getByRole('button', { name: 'Add destination' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/bucket/);
    await dialog.getByLabel('Bucket').fill(s3.bucket);
    await dialog.getByRole('button', { name: 'Add destination' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page
      .getByRole('row')
      .filter({ hasText: `s3://${s3.bucket}/console/audit` })
      .first();
    await row.waitFor();
    expect(await row.textContent()).toContain('paused');
    const [d] = await (await te.api('/audit-logs/export/destinations')).json();
    expect(d).toMatchObject({ status: 'paused', has_credentials: true });

    await row.getByRole('button', { name: `Test ${s3.bucket}` }).click();
    await page.locator('.badge', { hasText: 'test passed' }).waitFor();
    await row.getByRole('button', { name: `Resume ${s3.bucket}` }).click();
    await row.getByRole('button', { name: `Pause ${s3.bucket}` }).waitFor();
    expect(await row.textContent()).toContain('active');

    // Recorded after the resume, then delivered once its one-second window has ended.
    await te.api('/org/projects?tag=console-export');
    await expect
      .poll(async () => {
        await te.engine.services.auditExport.exporter.runOnce();
        return (await s3.objects('console/')).flatMap((o) => o.lines).some((l) => l.path === '/org/projects?tag=console-export');
      })
      .toBe(true);
    await page.reload();
    const delivered = page
      .getByRole('row')
      .filter({ hasText: `s3://${s3.bucket}/console/audit` })
      .first();
    await delivered.waitFor();
    await expect.poll(async () => await delivered.textContent()).not.toMatch(/not yet/);
    await delivered.getByRole('button', { name: `s3://${s3.bucket}/console/audit` }).click();
    await page.getByText(d.external_id).waitFor();
    await page.getByText('arn:aws:iam::999999999999:role/browserdeck').waitFor();
    expect(await page.content()).not.toContain('S3RVER</');
    await c.screenshot('audit-export');

    await delivered.getByRole('button', { name: `Pause ${s3.bucket}` }).click();
    await delivered.getByRole('button', { name: `Resume ${s3.bucket}` }).waitFor();
    expect((await (await te.api(`/audit-logs/export/destinations/${d.id}`)).json()).status).toBe('paused');

    await delivered.getByRole('button', { name: `Delete ${s3.bucket}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'No audit export destinations' }).waitFor();
    expect((await te.api(`/audit-logs/export/destinations/${d.id}`)).status).toBe(404);
  });
});
