/**
 * Delivers active destinations' audit rows, window by window (spec §13). Per destination:
 * claim its lease in the database (one node exports it on a cluster; a lapsed lease is taken
 * over), then for each committable window write its objects and only then advance the cursor
 * (compare-and-set on the cursor, the lease, `active` and not deleted). A crash or failure
 * between the two leaves the cursor where it was: the window is sent again, never skipped.
 * Windows without rows are passed over without writing anything. Failures are counted on the
 * destination and retried with backoff. `stop()` aborts uploads in flight and frees the leases.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { entryOf, type AuditRow } from './audit-query.js';
import type { AuditExportSettings } from './export-settings.js';
import type { AuditExportDestinations, DestinationRow } from './export-destinations.js';
import { AssumeRoleError, errorText, openDelivery, type Delivery, type DeliveryTarget } from './export-s3.js';
import { committableEnd, compactTime, objectKey, retryDelayMs, windowEndAfter, windowStartOf } from './export-window.js';
import type { AuditDestinationTestResult } from '../../../shared/wire/audit-destinations.js';

const gzipAsync = promisify(gzip);
const LEASE_MS = 5 * 60_000;
/** Windows one destination may commit in one pass (a long backlog is caught up over passes). */
const MAX_WINDOWS_PER_PASS = 100;

export interface AuditExporterDeps {
  db: Kysely<Database>;
  clock: Clock;
  records: AuditExportDestinations;
  settings: AuditExportSettings;
  nodeId: string;
  /** Writes the audit rows still queued on this node. */
  flush(): Promise<void>;
  log(msg: string, err?: unknown): void;
  /** Opens the way into a bucket (export-s3.ts); replaceable to fail on purpose in tests. */
  open?: typeof openDelivery;
}

export class AuditExporter {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private stopped = false;
  /** Objects this node has written (tests, the log). */
  objectsWritten = 0;

  constructor(private readonly deps: AuditExporterDeps) {}

  start(): void {
    const every = this.deps.settings.intervalMs;
    if (every > 0 && !this.timer) {
      this.timer = setInterval(() => void this.runOnce(), every);
      this.timer.unref();
    }
  }

  /** One pass over the destinations due now; a call during a pass joins it. */
  runOnce(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.abort.abort();
    await this.running?.catch(() => {});
  }

  /** `POST …/test`: the role step, then a probe object (removed again where the role allows). Engine stop aborts it. */
  async probe(row: DestinationRow): Promise<AuditDestinationTestResult> {
    const signal = this.abort.signal;
    let delivery: Delivery;
    try {
      delivery = await (this.deps.open ?? openDelivery)(this.deps.settings, this.targetOf(row), signal);
    } catch (err) {
      const stage = err instanceof AssumeRoleError ? 'assume_role' : 'put_object';
      return { stage, success: false, error: { code: `${stage}_failed`, message: errorText(err) } };
    }
    try {
      const name = `${compactTime(this.deps.clock.now().getTime())}-${Math.random().toString(36).slice(2, 10)}.jsonl.gz`;
      const key = [row.prefix, `destination_id=${row.id}`, `org_id=${row.org_id}`, '_browserdeck_probe', name].filter(Boolean).join('/');
      try {
        await delivery.put(key, await gzipAsync(Buffer.alloc(0)), signal);
      } catch (err) {
        return { stage: 'put_object', success: false, error: { code: 'put_object_failed', message: errorText(err) } };
      }
      await delivery.remove(key, signal).catch(() => {}); // s3:DeleteObject is not required of the role
      return { stage: 'complete', success: true };
    } finally {
      delivery.close();
    }
  }

  private async pass(): Promise<void> {
    await this.deps.flush().catch((err) => this.deps.log('audit export: flushing queued audit rows failed', err));
    const now = this.deps.clock.now().toISOString();
    const due = await this.deps.db
      .selectFrom('audit_export_destinations')
      .select('id')
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
      .orderBy('id')
      .execute();
    for (const { id } of due) {
      if (this.stopped) return;
      await this.exportDestination(id).catch((err) => this.deps.log(`audit export of destination ${id} failed`, err));
    }
  }

  private async exportDestination(id: string): Promise<void> {
    if (!(await this.claim(id))) return;
    let delivery: Delivery | undefined;
    let row: DestinationRow | undefined;
    try {
      for (let i = 0; i < MAX_WINDOWS_PER_PASS && !this.stopped; i++) {
        row = await this.mine(id);
        if (!row?.cursor_at) return;
        const nowMs = this.deps.clock.now().getTime();
        if (row.next_attempt_at && Date.parse(row.next_attempt_at) > nowMs) return;
        const { windowMs, holdMs } = this.deps.settings;
        const end = committableEnd(nowMs, { windowMs, holdMs });
        const cursor = row.cursor_at;
        if (Date.parse(cursor) >= end) return;
        if (row.gap_from !== null && row.gap_to !== null && cursor >= row.gap_from && cursor < row.gap_to) {
          // A pause: what it recorded is never exported.
          if (!(await this.commit(row, cursor, row.gap_to, false))) return;
          continue;
        }
        // Up to the committable end, or to a pause not reached yet (its rows are not this window's).
        const limit = row.gap_from !== null && cursor < row.gap_from && Date.parse(row.gap_from) < end ? row.gap_from : iso(end);
        const first = await this.firstRowTime(row.org_id, cursor, limit);
        if (!first) {
          // Nothing recorded up to the limit: pass over it without an object.
          if (!(await this.commit(row, cursor, limit, false)) || limit === iso(end)) return;
          continue;
        }
        const firstMs = Date.parse(first);
        const windowStart = Math.max(Date.parse(cursor), windowStartOf(firstMs, windowMs));
        const windowEnd = minIso(iso(windowEndAfter(firstMs, windowMs)), limit);
        delivery ??= await (this.deps.open ?? openDelivery)(this.deps.settings, this.targetOf(row), this.abort.signal);
        await this.deliverWindow(delivery, row, cursor, windowEnd, windowStart);
        if (!(await this.commit(row, cursor, windowEnd, true))) return;
      }
    } catch (err) {
      if (!this.stopped) await this.fail(id, row, err);
    } finally {
      delivery?.close();
      await this.release(id);
    }
  }

  /** Writes the rows of [from, to) as chunks of `chunkRows`, in (timestamp, id) order. */
  private async deliverWindow(delivery: Delivery, row: DestinationRow, from: string, to: string, windowStartMs: number): Promise<void> {
    let after: AuditRow | undefined;
    for (let chunk = 0; ; chunk++) {
      let q = this.deps.db.selectFrom('audit_logs').selectAll().where('org_id', '=', row.org_id).where('timestamp', '>=', from).where('timestamp', '<', to);
      if (after) {
        const a = after;
        q = q.where((eb) => eb.or([eb('timestamp', '>', a.timestamp), eb.and([eb('timestamp', '=', a.timestamp), eb('id', '>', a.id)])]));
      }
      const rows = (await q.orderBy('timestamp', 'asc').orderBy('id', 'asc').limit(this.deps.settings.chunkRows).execute()) as AuditRow[];
      if (rows.length === 0) return;
      let text = '';
      for (const r of rows) text += JSON.stringify({ event_id: String(r.id), ...entryOf(r) }) + '\n';
      const key = objectKey({ prefix: row.prefix, destinationId: row.id, orgId: row.org_id, windowStartMs, chunk });
      await delivery.put(key, await gzipAsync(Buffer.from(text, 'utf8')), this.abort.signal);
      this.objectsWritten++;
      if (rows.length < this.deps.settings.chunkRows) return;
      after = rows[rows.length - 1];
    }
  }

  private async firstRowTime(orgId: string, from: string, to: string): Promise<string | undefined> {
    const r = await this.deps.db
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.min<string>('timestamp').as('t'))
      .where('org_id', '=', orgId)
      .where('timestamp', '>=', from)
      .where('timestamp', '<', to)
      .executeTakeFirst();
    return r?.t ?? undefined;
  }

  /** Takes the destination's lease if it is free, lapsed or already this node's. */
  private async claim(id: string): Promise<boolean> {
    const now = this.deps.clock.now();
    const res = await this.deps.db
      .updateTable('audit_export_destinations')
      .set({ lease_node: this.deps.nodeId, lease_until: iso(now.getTime() + LEASE_MS) })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('lease_node', 'is', null), eb('lease_node', '=', this.deps.nodeId), eb('lease_until', '<', now.toISOString())]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  private async mine(id: string): Promise<DestinationRow | undefined> {
    return this.deps.db
      .selectFrom('audit_export_destinations')
      .selectAll()
      .where('id', '=', id)
      .where('lease_node', '=', this.deps.nodeId)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Advances the cursor from `from` to `to` if nothing moved it meanwhile (the lease is renewed with it). */
  private async commit(row: DestinationRow, from: string, to: string, delivered: boolean): Promise<boolean> {
    const now = this.deps.clock.now();
    const res = await this.deps.db
      .updateTable('audit_export_destinations')
      .set({
        cursor_at: to,
        lease_until: iso(now.getTime() + LEASE_MS),
        ...(delivered ? { consecutive_failures: 0, last_success_at: now.toISOString(), next_attempt_at: null } : {}),
      })
      .where('id', '=', row.id)
      .where('cursor_at', '=', from)
      .where('lease_node', '=', this.deps.nodeId)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  private async fail(id: string, row: DestinationRow | undefined, err: unknown): Promise<void> {
    const failures = (row?.consecutive_failures ?? 0) + 1;
    const now = this.deps.clock.now();
    this.deps.log(`audit export to destination ${id} failed (${failures} in a row)`, err);
    await this.deps.db
      .updateTable('audit_export_destinations')
      .set({
        consecutive_failures: sql<number>`consecutive_failures + 1`,
        last_error: errorText(err),
        last_error_at: now.toISOString(),
        next_attempt_at: iso(now.getTime() + retryDelayMs(failures)),
      })
      .where('id', '=', id)
      .where('lease_node', '=', this.deps.nodeId)
      .execute();
  }

  private async release(id: string): Promise<void> {
    await this.deps.db
      .updateTable('audit_export_destinations')
      .set({ lease_node: null, lease_until: null })
      .where('id', '=', id)
      .where('lease_node', '=', this.deps.nodeId)
      .execute();
  }

  private targetOf(row: DestinationRow): DeliveryTarget {
    return {
      id: row.id,
      orgId: row.org_id,
      bucket: row.bucket,
      region: row.region,
      roleArn: row.role_arn,
      externalId: row.external_id,
      kmsKeyId: row.kms_key_id,
      credentials: this.deps.records.credentialsOf(row),
    };
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
const minIso = (a: string, b: string): string => (a < b ? a : b);
