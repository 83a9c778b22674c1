/**
 * Audit-log export on two nodes sharing one PostgreSQL database: when both nodes' exporters
 * run at once, each window of a destination is written by one node only (the lease row in the
 * database), every row exactly once; a lease left by a node that died is taken over once it
 * lapses, not before.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, PG_URL, flushAudits, joinNode, startTestEngine, type TestEngine } from './two-nodes.js';
import { startTestS3, S3_KEY, type TestS3 } from '../../helpers/s3-server.js';
import { manualClock, sec } from '../audit/audit-helpers.js';

const BASE = '/audit-logs/export/destinations';
const T0 = '2026-11-26T12:00:00.000Z';
const at = (minutes: number) => sec(T0, minutes * 60);

describe.skipIf(!PG_URL)(`audit export across nodes${PG_SKIP_REASON}`, () => {
  const clock = manualClock(T0);
  let s3: TestS3;
  let a: TestEngine;
  let b: TestEngine;
  beforeAll(async () => {
    s3 = await startTestS3();
    // The nodes of one cluster share the secret key: either may decrypt a destination's credentials.
    const env = {
      ...process.env,
      BROWSERDECK_SECRET_KEY: randomBytes(32).toString('base64'),
      BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT: s3.endpoint,
      BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS: '0',
      BROWSERDECK_AUDIT_EXPORT_CHUNK_ROWS: '2',
    };
    a = await startTestEngine({ clock, env });
    b = await joinNode(a, { clock, env });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await s3?.close();
  });

  const create = async (prefix: string) => {
    const d = await (
      await a.api(BASE, {
        method: 'POST',
        json: {
          type: 's3',
          format: 'jsonl.gz',
          bucket: s3.bucket,
          prefix,
          region: 'us-east-1',
          role_arn: 'arn:aws:iam::123456789012:role/audit',
          credentials: S3_KEY,
        },
      })
    ).json();
    expect((await b.api(`${BASE}/${d.id}`, { method: 'PATCH', json: { status: 'active' } })).status).toBe(200);
    return d as { id: string };
  };

  it('writes each window once when both nodes export at the same time', async () => {
    clock.set(at(0));
    const d = await create('both');
    for (let i = 0; i < 12; i++) {
      clock.set(sec(at(0), i * 40));
      await (i % 2 ? a : b).api(`/org/projects?tag=n-${i}`);
    }
    await flushAudits(a, b);
    clock.set(at(25));
    const ea = a.engine.services.auditExport.exporter;
    const eb = b.engine.services.auditExport.exporter;
    await Promise.all([ea.runOnce(), eb.runOnce()]);
    const objects = await s3.objects(`both/destination_id=${d.id}/`);
    expect(objects.length).toBeGreaterThan(3);
    // One writer for the destination, each object written once.
    expect(ea.objectsWritten + eb.objectsWritten).toBe(objects.length);
    expect(Math.min(ea.objectsWritten, eb.objectsWritten)).toBe(0);
    const rows = await a.engine.context.db
      .selectFrom('audit_logs')
      .select(['id', 'path'])
      .where('timestamp', '>=', at(0))
      .where('timestamp', '<', at(15))
      .orderBy('timestamp')
      .orderBy('id')
      .execute();
    const lines = objects.flatMap((o) => o.lines);
    expect(lines.map((l) => l.event_id)).toEqual(rows.map((r) => String(r.id)));
    expect(lines.filter((l) => String(l.path).startsWith('/org/projects?tag=n-'))).toHaveLength(12);
  });

  it('takes over the lease of a node that died only after it lapsed', async () => {
    clock.set(at(30));
    const d = await create('takeover');
    await a.api('/org/projects?tag=takeover');
    await flushAudits(a, b);
    const db = a.engine.context.db;
    await db
      .updateTable('audit_export_destinations')
      .set({ lease_node: 'dead-node', lease_until: at(50) })
      .where('id', '=', d.id)
      .execute();
    clock.set(at(46));
    await b.engine.services.auditExport.exporter.runOnce();
    expect(await s3.objects('takeover/')).toEqual([]);
    clock.set(at(51));
    await b.engine.services.auditExport.exporter.runOnce();
    const lines = (await s3.objects('takeover/')).flatMap((o) => o.lines);
    expect(lines.map((l) => l.path)).toContain('/org/projects?tag=takeover');
    const row = await db.selectFrom('audit_export_destinations').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.lease_node).toBeNull();
  });
});
