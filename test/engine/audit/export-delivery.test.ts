/**
 * Audit-log export to a real S3-compatible server (s3rver), read back and gunzipped: the
 * spec's object layout, `jsonl.gz` lines with `event_id`, windows held 10 minutes before they
 * are written, chunks, no export while paused (rows recorded before a pause still go; rows in
 * it never), at-least-once (a failure after the upload and before the cursor moved re-sends the
 * same objects, nothing skipped), delivery state after failures with backoff, and the role step
 * through STS where the operator configured it. The engine's clock is set by hand; the exporter
 * runs when the test says (`runOnce`), so nothing waits on a timer.
 *
 * @database export windows and their claims are rows and transactions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestS3, S3_KEY, type TestS3 } from '../../helpers/s3-server.js';
import { flushAudit, manualClock, sec } from './audit-helpers.js';
import { AuditExporter } from '../../../src/engine/domain/audit/export-runner.js';
import { auditExportSettings } from '../../../src/engine/domain/audit/export-settings.js';
import { openDelivery } from '../../../src/engine/domain/audit/export-s3.js';
import { encodeExportCursor } from '../../../src/engine/domain/audit/export-window.js';

const BASE = '/audit-logs/export/destinations';
const T0 = '2026-11-26T10:00:00.000Z';
const at = (minutes: number) => sec(T0, minutes * 60);
const clock = manualClock(T0);
let t: TestEngine;
let s3: TestS3;
let env: NodeJS.ProcessEnv;

const create = async (extra: Record<string, unknown> = {}) => {
  const res = await t.api(BASE, {
    method: 'POST',
    json: {
      type: 's3',
      format: 'jsonl.gz',
      bucket: s3.bucket,
      region: 'us-east-1',
      role_arn: 'arn:aws:iam::123456789012:role/audit',
      credentials: S3_KEY,
      ...extra,
    },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; external_id: string };
};
const patch = async (id: string, json: Record<string, unknown>) => expect((await t.api(`${BASE}/${id}`, { method: 'PATCH', json })).status).toBe(200);
const dest = async (id: string) => (await t.api(`${BASE}/${id}`)).json();
const hit = (tag: string) => t.api(`/org/projects?tag=${tag}`);
const runOnce = () => t.engine.services.auditExport.exporter.runOnce();

/** The org's audit rows in [from, to) as the exporter must have sent them. */
async function rowsBetween(from: string, to: string) {
  await flushAudit(t);
  const rows = await t.engine.context.db
    .selectFrom('audit_logs')
    .selectAll()
    .where('timestamp', '>=', from)
    .where('timestamp', '<', to)
    .orderBy('timestamp')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ event_id: String(r.id), path: r.path, timestamp: r.timestamp }));
}
const linesOf = (objs: Array<{ lines: Record<string, unknown>[] }>) =>
  objs.flatMap((o) => o.lines).map((l) => ({ event_id: l.event_id, path: l.path, timestamp: l.timestamp }));

beforeAll(async () => {
  s3 = await startTestS3();
  env = {
    ...process.env,
    BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT: s3.endpoint,
    BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS: '0',
    BROWSERDECK_AUDIT_EXPORT_CHUNK_ROWS: '3',
  };
  t = await startTestEngine({ clock, env });
});
afterAll(async () => {
  await t?.stop();
  await s3?.close();
});

describe('audit log export to S3', () => {
  it('writes each window after its 10-minute hold, in the spec layout, and nothing recorded while paused', async () => {
    clock.set(T0);
    const d = await create({ prefix: 'exports/bd' });
    clock.set(at(1));
    await hit('paused-before-start');
    await runOnce();
    expect(await s3.objects('exports/')).toEqual([]);

    clock.set(at(2));
    await patch(d.id, { status: 'active' });
    for (let i = 0; i < 7; i++) {
      clock.set(sec(at(3), i));
      await hit(`w1-${i}`);
    }
    clock.set(at(7));
    await hit('w2-a');
    await hit('w2-b');

    // 10:14: the first window (10:02–10:05) ended 9 minutes ago: still held.
    clock.set(at(14));
    await runOnce();
    expect(await s3.objects('exports/')).toEqual([]);

    clock.set(at(16));
    await runOnce();
    const prefix = `exports/bd/destination_id=${d.id}/org_id=`;
    const first = await s3.objects('exports/');
    expect(first.map((o) => o.key.replace(/org_id=[^/]+/, 'org_id=O'))).toEqual([
      `exports/bd/destination_id=${d.id}/org_id=O/date=2026-11-26/hour=10/20261126T100200Z-0000.jsonl.gz`,
      `exports/bd/destination_id=${d.id}/org_id=O/date=2026-11-26/hour=10/20261126T100200Z-0001.jsonl.gz`,
      `exports/bd/destination_id=${d.id}/org_id=O/date=2026-11-26/hour=10/20261126T100200Z-0002.jsonl.gz`,
    ]);
    expect(first.every((o) => o.key.startsWith(prefix))).toBe(true);
    expect(first.map((o) => o.lines.length)).toEqual([3, 3, 2]);
    // Exactly the rows of 10:02–10:05 (the activating PATCH and the seven requests), in order.
    expect(linesOf(first)).toEqual(await rowsBetween(at(2), at(5)));
    expect(first[0].lines[0]).toMatchObject({ event_id: expect.any(String), method: 'PATCH', auth_strategy: 'api_key', status: 200 });
    expect(Object.keys(first[0].lines[1]).sort()).toEqual(
      [
        'event_id',
        'timestamp',
        'auth_strategy',
        'user_id',
        'email',
        'method',
        'path',
        'route',
        'domain',
        'client_ip',
        'user_agent',
        'status',
        'duration_ms',
      ].sort(),
    );
    expect(JSON.stringify(first)).not.toContain('paused-before-start');
    expect(await dest(d.id)).toMatchObject({
      status: 'active',
      consecutive_failures: 0,
      last_success_at: at(16),
      last_exported_cursor: encodeExportCursor(at(5)),
    });

    clock.set(at(21));
    await runOnce();
    const second = (await s3.objects('exports/')).filter((o) => o.key.includes('T100500Z'));
    expect(second.map((o) => o.key.split('/').pop())).toEqual(['20261126T100500Z-0000.jsonl.gz']);
    expect(linesOf(second).map((l) => l.path)).toEqual(['/org/projects?tag=w2-a', '/org/projects?tag=w2-b']);

    // Pause: what came before it is still delivered, what came during it never.
    clock.set(at(22));
    await hit('before-pause');
    clock.set(at(23));
    await patch(d.id, { status: 'paused' });
    clock.set(at(24));
    await hit('during-pause');
    await runOnce();
    clock.set(at(26));
    await patch(d.id, { status: 'active' });
    clock.set(at(27));
    await hit('after-resume');
    clock.set(at(45));
    await runOnce();
    const all = linesOf(await s3.objects('exports/'));
    const paths = all.map((l) => l.path);
    expect(paths).toContain('/org/projects?tag=before-pause');
    expect(paths).toContain('/org/projects?tag=after-resume');
    expect(paths).not.toContain('/org/projects?tag=during-pause');
    expect(all).toEqual([...(await rowsBetween(at(2), at(23))), ...(await rowsBetween(at(26), at(35)))]);
    // No event went out twice when nothing failed.
    expect(new Set(all.map((l) => l.event_id)).size).toBe(all.length);
  });

  it('re-sends a window whose objects were written but whose cursor did not move (never skips)', async () => {
    clock.set(at(50));
    const d = await create({ prefix: 'crash' });
    await patch(d.id, { status: 'active' });
    for (let i = 0; i < 4; i++) {
      clock.set(sec(at(51), i));
      await hit(`crash-${i}`);
    }
    clock.set(at(66));
    // Another exporter on the same database whose process "dies" right after its last upload
    // returned: the objects are in the bucket, the cursor commit never happens.
    let puts = 0;
    const dying = new AuditExporter({
      db: t.engine.context.db,
      clock,
      records: t.engine.services.auditExport.records,
      settings: auditExportSettings(env),
      nodeId: 'dying-node',
      flush: () => flushAudit(t),
      log: () => {},
      open: async (settings, target, signal) => {
        const real = await openDelivery(settings, target, signal);
        if (target.id !== d.id) return real;
        return {
          ...real,
          async put(key, body, sig) {
            await real.put(key, body, sig);
            // Six rows in chunks of three: the second upload is the window's last.
            if (++puts === 2) throw new Error('process died after the upload');
          },
        };
      },
    });
    await dying.runOnce();
    await dying.stop();
    const expected = await rowsBetween(at(50), at(55));
    expect(expected.length).toBe(6); // the create and the PATCH at 10:50, the four hits
    const written = await s3.objects('crash/');
    expect(written.map((o) => o.key.split('/').pop())).toEqual(['20261126T105000Z-0000.jsonl.gz', '20261126T105000Z-0001.jsonl.gz']);
    const failed = await dest(d.id);
    expect(failed).toMatchObject({
      consecutive_failures: 1,
      last_error: 'process died after the upload',
      last_error_at: at(66),
      next_attempt_at: sec(at(66), 30),
    });
    expect(failed.last_exported_cursor).toBe(encodeExportCursor(at(50)));

    // Backoff: not retried before next_attempt_at.
    await runOnce();
    expect((await dest(d.id)).consecutive_failures).toBe(1);
    clock.set(sec(at(66), 31));
    await runOnce();
    const again = await s3.objects('crash/');
    expect(again.map((o) => o.key.split('/').pop())).toEqual(['20261126T105000Z-0000.jsonl.gz', '20261126T105000Z-0001.jsonl.gz']);
    expect(linesOf(again)).toEqual(expected);
    expect(await dest(d.id)).toMatchObject({
      consecutive_failures: 0,
      last_exported_cursor: encodeExportCursor(at(55)),
      last_error: 'process died after the upload',
    });
  });

  it('engine stop aborts a /test probe in flight', async () => {
    const d = await create({ prefix: 'probe-stop' });
    const row = await t.engine.services.auditExport.records.get(t.engine.context.orgId, d.id);
    let putStarted!: () => void;
    const started = new Promise<void>((r) => (putStarted = r));
    const exporter = new AuditExporter({
      db: t.engine.context.db,
      clock,
      records: t.engine.services.auditExport.records,
      settings: auditExportSettings(env),
      nodeId: 'probe-node',
      flush: () => flushAudit(t),
      log: () => {},
      open: async (settings, target, signal) => {
        const real = await openDelivery(settings, target, signal);
        // An upload that only ends when it is aborted (a bucket endpoint that never answers).
        const put = (_key: string, _body: Buffer, sig?: AbortSignal) =>
          new Promise<void>((_resolve, reject) => {
            putStarted();
            sig?.addEventListener('abort', () => reject(new Error('upload aborted')), { once: true });
          });
        return { ...real, put };
      },
    });
    const probing = exporter.probe(row);
    await started;
    await exporter.stop();
    expect(await probing).toEqual({ stage: 'put_object', success: false, error: { code: 'put_object_failed', message: 'upload aborted' } });
  });

  it('counts failed deliveries on the destination and retries with backoff', async () => {
    clock.set(at(70));
    const d = await create({ prefix: 'failing', credentials: { access_key_id: 'UNKNOWN-KEY', secret_access_key: 'x' } });
    await patch(d.id, { status: 'active' });
    await hit('failing');
    clock.set(at(90));
    await runOnce();
    const one = await dest(d.id);
    expect(one).toMatchObject({ consecutive_failures: 1, last_error: expect.stringContaining('InvalidAccessKeyId'), next_attempt_at: sec(at(90), 30) });
    expect(one.last_exported_cursor).toBe(encodeExportCursor(at(70)));
    clock.set(sec(at(90), 31));
    await runOnce();
    expect(await dest(d.id)).toMatchObject({ consecutive_failures: 2, next_attempt_at: sec(at(90), 31 + 60) });
    // Fixed credentials: the backlog goes out and the count resets.
    await patch(d.id, { credentials: S3_KEY });
    clock.set(sec(at(90), 100));
    await runOnce();
    expect(await dest(d.id)).toMatchObject({ consecutive_failures: 0, last_success_at: sec(at(90), 100) });
    expect(linesOf(await s3.objects('failing/')).map((l) => l.path)).toContain('/org/projects?tag=failing');
  });
});

describe('role assumption through STS (operator setting)', () => {
  let sts: http.Server;
  let seen: URLSearchParams[] = [];
  let e2: TestEngine;
  const stsReply = `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>
<AccessKeyId>S3RVER</AccessKeyId><SecretAccessKey>S3RVER</SecretAccessKey><SessionToken>session-token</SessionToken><Expiration>2030-01-01T00:00:00Z</Expiration>
</Credentials><AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/audit/bd</Arn><AssumedRoleId>AROA1:bd</AssumedRoleId></AssumedRoleUser></AssumeRoleResult>
<ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></AssumeRoleResponse>`;

  beforeAll(async () => {
    // s3rver has no STS: a loopback endpoint that answers AssumeRole as AWS STS does (query
    // protocol) and records what it was asked. It hands out the only key s3rver accepts, so a
    // delivery that succeeds used the assumed credentials, not the destination's base ones.
    sts = http.createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        const form = new URLSearchParams(b);
        seen.push(form);
        const ok = form.get('RoleArn') === 'arn:aws:iam::123456789012:role/audit';
        res.writeHead(ok ? 200 : 403, { 'content-type': 'text/xml' });
        res.end(
          ok
            ? stsReply
            : '<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not authorized to assume this role</Message></Error><RequestId>2</RequestId></ErrorResponse>',
        );
      });
    });
    await new Promise<void>((r) => sts.listen(0, '127.0.0.1', r));
    e2 = await startTestEngine({
      env: {
        ...process.env,
        BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT: s3.endpoint,
        BROWSERDECK_AUDIT_EXPORT_STS_ENDPOINT: `http://127.0.0.1:${(sts.address() as AddressInfo).port}`,
        BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS: '0',
      },
    });
  });
  afterAll(async () => {
    await e2?.stop();
    await new Promise((r) => sts?.close(r));
  });

  it('assumes role_arn with the external id, then writes with the role credentials; a refused role fails at assume_role', async () => {
    const body = {
      type: 's3',
      format: 'jsonl.gz',
      bucket: s3.bucket,
      prefix: 'sts',
      region: 'us-east-1',
      credentials: { access_key_id: 'BASE-ONLY', secret_access_key: 'b' },
    };
    const ok = await (await e2.api(BASE, { method: 'POST', json: { ...body, role_arn: 'arn:aws:iam::123456789012:role/audit' } })).json();
    seen = [];
    expect(await (await e2.api(`${BASE}/${ok.id}/test`, { method: 'POST' })).json()).toEqual({ stage: 'complete', success: true });
    expect(seen).toHaveLength(1);
    expect(Object.fromEntries(seen[0])).toMatchObject({ Action: 'AssumeRole', RoleArn: 'arn:aws:iam::123456789012:role/audit', ExternalId: ok.external_id });

    const denied = await (await e2.api(BASE, { method: 'POST', json: { ...body, role_arn: 'arn:aws:iam::123456789012:role/other' } })).json();
    expect(await (await e2.api(`${BASE}/${denied.id}/test`, { method: 'POST' })).json()).toMatchObject({
      stage: 'assume_role',
      success: false,
      error: { code: 'assume_role_failed', message: expect.stringContaining('not authorized') },
    });
  });
});
