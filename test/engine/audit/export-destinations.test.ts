/**
 * `/audit-logs/export/destinations` as raw HTTP from spec §13: create (paused, external id,
 * the engine's principal), get, list with offset pagination, PATCH (kms_key_id '' removes,
 * status, a stale concurrent change is 409), soft DELETE, `/test` against a real S3-compatible
 * server (s3rver). Bad input is an Error object with 400; project keys read but do not write
 * (403 before validation); another organization sees nothing (404). Static credentials are
 * stored encrypted and never answered.
 *
 * @database destinations and offset pagination are queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestS3, S3_KEY, type TestS3 } from '../../helpers/s3-server.js';
import { secondOrg } from './audit-helpers.js';

const BASE = '/audit-logs/export/destinations';
let t: TestEngine;
let s3: TestS3;
let projectKey: string;
let other: { key: string };

const body = (extra: Record<string, unknown> = {}) => ({
  type: 's3',
  format: 'jsonl.gz',
  bucket: s3.bucket,
  prefix: 'exports/bd',
  region: 'us-east-1',
  role_arn: 'arn:aws:iam::123456789012:role/audit-writer',
  credentials: S3_KEY,
  ...extra,
});
const as = (key: string) => ({ authorization: `Bearer ${key}` });

beforeAll(async () => {
  s3 = await startTestS3();
  t = await startTestEngine({
    env: {
      ...process.env,
      BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT: s3.endpoint,
      BROWSERDECK_AUDIT_EXPORT_PRINCIPAL_ARN: 'arn:aws:iam::999999999999:role/browserdeck',
      BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS: '0',
    },
  });
  const project = await t.client.projects.create({ name: 'audit-dest-project' });
  projectKey = (await t.client.apiKeys.create({ name: 'scoped', project_id: project.id })).key!;
  other = await secondOrg(t);
});
afterAll(async () => {
  await t?.stop();
  await s3?.close();
});

describe('audit log export destinations', () => {
  it('creates a paused destination with an external id and never answers its credentials', async () => {
    const res = await t.api(BASE, { method: 'POST', json: body({ kms_key_id: 'alias/audit' }) });
    expect(res.status).toBe(200);
    const d = await res.json();
    expect(d).toMatchObject({
      type: 's3',
      format: 'jsonl.gz',
      bucket: s3.bucket,
      prefix: 'exports/bd',
      region: 'us-east-1',
      role_arn: 'arn:aws:iam::123456789012:role/audit-writer',
      kms_key_id: 'alias/audit',
      status: 'paused',
      kernel_role_arn: 'arn:aws:iam::999999999999:role/browserdeck',
      consecutive_failures: 0,
      has_credentials: true,
      last_exported_cursor: null,
    });
    expect(d.external_id).toMatch(/^bd-[0-9a-f]{32}$/);
    expect(JSON.stringify(d)).not.toContain('S3RVER');
    // At rest: one ciphertext, not the secret.
    const row = await t.engine.context.db.selectFrom('audit_export_destinations').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.credentials_enc).toMatch(/^v1\./);
    expect(row.credentials_enc).not.toContain('S3RVER');
    // A new destination gets a new external id.
    const again = await (await t.api(BASE, { method: 'POST', json: body() })).json();
    expect(again.external_id).not.toBe(d.external_id);
    const got = await (await t.api(`${BASE}/${d.id}`)).json();
    expect(got).toEqual(d);
  });

  it('refuses bad fields with a 400 Error object naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'gcs' }, 'type'],
      [{ format: 'csv' }, 'format'],
      [{ bucket: 'Bad_Bucket' }, 'bucket'],
      [{ bucket: 'evil.example.com/x' }, 'bucket'],
      [{ region: 'x.evil.example' }, 'region'],
      [{ role_arn: 'not-an-arn' }, 'role_arn'],
      [{ prefix: 'a/../b' }, 'prefix'],
      [{ kms_key_id: 'has space' }, 'kms_key_id'],
      [{ credentials: { access_key_id: 'x' } }, 'credentials'],
    ];
    for (const [extra, field] of cases) {
      const res = await t.api(BASE, { method: 'POST', json: body(extra) });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      const err = await res.json();
      expect(err).toMatchObject({ code: expect.any(String), message: expect.stringContaining(field) });
    }
    const missing = await t.api(BASE, { method: 'POST', json: { type: 's3' } });
    expect(missing.status).toBe(400);
    const d = await (await t.api(BASE, { method: 'POST', json: body() })).json();
    const badStatus = await t.api(`${BASE}/${d.id}`, { method: 'PATCH', json: { status: 'running' } });
    expect(badStatus.status).toBe(400);
    expect((await badStatus.json()).message).toContain('status');
  });

  it('patches fields, removes kms_key_id with "", activates and pauses', async () => {
    const d = await (await t.api(BASE, { method: 'POST', json: body({ kms_key_id: 'alias/k' }) })).json();
    const res = await t.api(`${BASE}/${d.id}`, { method: 'PATCH', json: { prefix: '/other/', kms_key_id: '', region: null, status: 'active' } });
    expect(res.status).toBe(200);
    const p = await res.json();
    expect(p).toMatchObject({ prefix: 'other', kms_key_id: null, region: 'us-east-1', status: 'active', has_credentials: true });
    expect(p.last_exported_cursor).toMatch(/^v1\./);
    const removed = await (await t.api(`${BASE}/${d.id}`, { method: 'PATCH', json: { credentials: null, status: 'paused' } })).json();
    expect(removed).toMatchObject({ has_credentials: false, status: 'paused' });
  });

  it('answers 409 to a PATCH that lost a race with another change', async () => {
    const d = await (await t.api(BASE, { method: 'POST', json: body() })).json();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_v, i) => t.api(`${BASE}/${d.id}`, { method: 'PATCH', json: { prefix: `race-${i}` } }).then((r) => r.status)),
    );
    expect(results.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(results.every((s) => s === 200 || s === 409)).toBe(true);
    // Deterministically: a PATCH applied to the state read before another change landed.
    const stale = await t.engine.context.db.selectFrom('audit_export_destinations').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect((await t.api(`${BASE}/${d.id}`, { method: 'PATCH', json: { prefix: 'first' } })).status).toBe(200);
    await expect(t.engine.services.auditExport.records.applyPatch(stale, { prefix: 'second' })).rejects.toMatchObject({
      status: 409,
      code: 'concurrent_modification',
    });
    expect((await (await t.api(`${BASE}/${d.id}`)).json()).prefix).toBe('first');
  });

  it('lists with offset pagination, deletes softly (then 404) and keeps other orgs out', async () => {
    const res = await t.api(`${BASE}?limit=2`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-has-more')).toBe('true');
    expect(res.headers.get('x-next-offset')).toBe('2');
    const all = await (await t.api(`${BASE}?limit=100`)).json();
    const d = all[all.length - 1];
    expect((await t.api(`${BASE}/${d.id}`, { headers: as(other.key) })).status).toBe(404);
    expect((await t.api(`${BASE}/${d.id}`, { method: 'PATCH', headers: as(other.key), json: { bucket: 'BAD' } })).status).toBe(404);
    expect(await (await t.api(BASE, { headers: as(other.key) })).json()).toEqual([]);
    expect((await t.api(`${BASE}/${d.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await t.api(`${BASE}/${d.id}`)).status).toBe(404);
    expect((await t.api(`${BASE}/${d.id}/test`, { method: 'POST' })).status).toBe(404);
    const row = await t.engine.context.db.selectFrom('audit_export_destinations').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    expect(row.credentials_enc).toBeNull();
    const after = await (await t.api(`${BASE}?limit=100`)).json();
    expect(after.map((x: { id: string }) => x.id)).not.toContain(d.id);
  });

  it('lets project keys read but not write (403 before the body is looked at)', async () => {
    const d = await (await t.api(BASE, { method: 'POST', json: body() })).json();
    expect((await t.api(`${BASE}/${d.id}`, { headers: as(projectKey) })).status).toBe(200);
    expect((await t.api(BASE, { headers: as(projectKey) })).status).toBe(200);
    for (const [method, path, json] of [
      ['POST', BASE, { bogus: true }],
      ['PATCH', `${BASE}/${d.id}`, { bucket: 'BAD' }],
      ['DELETE', `${BASE}/${d.id}`, undefined],
      ['POST', `${BASE}/${d.id}/test`, undefined],
    ] as const) {
      const res = await t.api(path, { method, headers: as(projectKey), json });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toMatchObject({ code: expect.any(String), message: expect.stringContaining('org-wide') });
    }
  });

  it('documents the six operations in /openapi.json', async () => {
    const doc = (await (await t.api('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const ops = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith(BASE))
      .flatMap(([p, m]) => Object.keys(m).map((verb) => `${verb.toUpperCase()} ${p}`))
      .sort();
    expect(ops).toEqual([`DELETE ${BASE}/{id}`, `GET ${BASE}`, `GET ${BASE}/{id}`, `PATCH ${BASE}/{id}`, `POST ${BASE}`, `POST ${BASE}/{id}/test`]);
  });

  it('/test uploads a probe with the destination credentials, and says which stage failed', async () => {
    const ok = await (await t.api(BASE, { method: 'POST', json: body() })).json();
    const res = await t.api(`${BASE}/${ok.id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ stage: 'complete', success: true });
    // The probe is temporary: removed after the upload.
    expect(await s3.objects(`exports/bd/destination_id=${ok.id}/`)).toEqual([]);

    const wrongKey = await (await t.api(BASE, { method: 'POST', json: body({ credentials: { access_key_id: 'NOT-KNOWN', secret_access_key: 'x' } }) })).json();
    const failed = await (await t.api(`${BASE}/${wrongKey.id}/test`, { method: 'POST' })).json();
    expect(failed).toMatchObject({
      stage: 'put_object',
      success: false,
      error: { code: 'put_object_failed', message: expect.stringContaining('InvalidAccessKeyId') },
    });

    const noBucket = await (await t.api(BASE, { method: 'POST', json: body({ bucket: 'no-such-bucket' }) })).json();
    const missing = await (await t.api(`${BASE}/${noBucket.id}/test`, { method: 'POST' })).json();
    expect(missing).toMatchObject({
      stage: 'put_object',
      success: false,
      error: { code: 'put_object_failed', message: expect.stringContaining('NoSuchBucket') },
    });
  });
});
