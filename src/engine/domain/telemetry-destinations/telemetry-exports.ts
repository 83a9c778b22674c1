/**
 * The running exports (`services.telemetryExports`): for every session whose telemetry config
 * binds an OTLP destination, one `OtlpSessionExport` (runtime/telemetry/otlp-session-export.ts)
 * following the session's telemetry. Started when the session starts, switched on PATCH, closed
 * when the session ends (after its last events) and at engine stop. Each batch's outcome goes to
 * the destination's delivery health; a flip healthy ↔ failing is announced on the change feed and
 * logged once (the reason only: header values are never logged). The export runs in the engine,
 * never in the jail, through the operator's host policy.
 */
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import type { TelemetryService } from '../../runtime/telemetry/telemetry-service.js';
import type { ExportOutcome, OtlpSessionExport } from '../../runtime/telemetry/otlp-session-export.js';
import type { OtlpHostPolicy } from '../../runtime/telemetry/otlp-host-policy.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { TelemetryExportRequest } from '../../../shared/wire/telemetry-destinations.js';
import type { TelemetryDestinations } from './telemetry-destinations.js';
import { exportDestination, type TelemetryExportConfig } from './telemetry-export.js';

export interface TelemetryExportsOptions {
  serviceVersion: string;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Why export is off on this engine (entitlements say so; binding answers 422), or undefined. */
  disabledReason?: string;
  /** Batch interval and export timeout (tests shorten them). */
  delayMs?: number;
  timeoutMs?: number;
}

type OtlpModule = typeof import('../../runtime/telemetry/otlp-session-export.js');
/**
 * The OpenTelemetry SDK is loaded by the first export: most engines never export, and importing
 * it costs every engine start (and every test file) a noticeable share of its start-up.
 */
let otlpModule: OtlpModule | undefined;
const loadOtlp = async (): Promise<OtlpModule> => (otlpModule ??= await import('../../runtime/telemetry/otlp-session-export.js'));

export class TelemetryExports {
  private readonly running = new Map<string, { destination: string; exp: OtlpSessionExport }>();
  private readonly closing = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    readonly records: TelemetryDestinations,
    private readonly telemetry: TelemetryService,
    readonly policy: OtlpHostPolicy,
    private readonly changes: ResourceChanges,
    private readonly o: TelemetryExportsOptions,
  ) {}

  get enabled(): boolean {
    return this.o.disabledReason === undefined;
  }

  /**
   * A create's or PATCH's `telemetry.export` names its destination by id or name: checked to be
   * one of the caller's org and rewritten to its id (in place), before the session code normalizes it.
   */
  async resolveExportDestination(orgId: string, telemetry: { export?: TelemetryExportRequest } | null | undefined): Promise<void> {
    const d = telemetry?.export?.otlp?.destination;
    if (!d) return;
    if (!this.enabled)
      throw DomainError.unprocessable(`telemetry export is not available on this engine: ${this.o.disabledReason}`, 'telemetry_export_unavailable');
    const given = [d.id, d.name].filter((x) => x !== undefined);
    if (given.length !== 1) throw DomainError.invalidField('telemetry.export.otlp.destination', 'give exactly one of id or name');
    const row = d.id !== undefined ? await this.records.byId(d.id) : await this.records.find(orgId, d.name!);
    if (!row || row.org_id !== orgId) throw DomainError.notFound('telemetry destination', given[0]);
    telemetry!.export!.otlp!.destination = { id: row.id };
  }

  /** A session's browser is up: start exporting when its config binds a destination, and follow its PATCHes and its end. */
  sessionStarted(handle: SessionHandle): void {
    this.reconcile(handle, 0);
    const off = handle.onUpdate((h) => this.reconcile(h));
    handle.scope.defer('telemetry export', () => {
      off();
      this.end(handle.id);
    });
  }

  /** How many sessions export now (tests, health). */
  get active(): number {
    return this.running.size;
  }

  /** Exports still closing and health writes still in flight (an ended session's last batch and its outcome). */
  get settling(): number {
    return this.closing.size;
  }

  private reconcile(handle: SessionHandle, after?: number): void {
    // An ended session gets no export: its end step has run, nothing would close one made now
    // (the first export's SDK load can finish after the session it was loaded for ended).
    if (this.stopped || handle.signal.aborted) return;
    const want = exportDestination((handle.telemetry as { export?: TelemetryExportConfig }).export);
    const cur = this.running.get(handle.id);
    if (cur?.destination === want) return;
    const tel = this.telemetry.get(handle.id) ?? this.telemetry.attach(handle);
    // A destination bound by PATCH gets the events from then on; one bound at create, all retained.
    const from = after ?? tel.buffer.lastSeq;
    if (cur) this.end(handle.id);
    if (!want) return;
    if (!otlpModule) {
      // Once loaded, the same decision is made again (the session may have ended or changed meanwhile).
      void loadOtlp().then(
        () => this.reconcile(handle, from),
        (err: unknown) => this.o.log.warn({ session: handle.id, err: (err as Error).message }, 'loading the OTLP exporter failed'),
      );
      return;
    }
    const exp = new otlpModule.OtlpSessionExport(tel, {
      sessionId: handle.id,
      serviceVersion: this.o.serviceVersion,
      policy: this.policy,
      target: async () => {
        const row = await this.records.byId(want);
        return row ? { endpoint: row.endpoint, headers: this.records.headersOf(row) } : undefined;
      },
      onOutcome: (outcome) => this.track(this.noteOutcome(want, handle.id, outcome)),
      delayMs: this.o.delayMs,
      timeoutMs: this.o.timeoutMs,
      after: from,
    });
    this.running.set(handle.id, { destination: want, exp });
  }

  private end(sessionId: string): void {
    const cur = this.running.get(sessionId);
    if (!cur) return;
    this.running.delete(sessionId);
    this.track(cur.exp.close());
  }

  /** Closes and health writes in flight: stop waits for them (nothing writes after the store closes). */
  private track(p: Promise<void>): void {
    const t = p.finally(() => this.closing.delete(t));
    this.closing.add(t);
  }

  private async noteOutcome(destination: string, sessionId: string, outcome: ExportOutcome): Promise<void> {
    try {
      const org = await this.records.recordOutcome(destination, outcome);
      if (!org) return;
      this.changes.upsert(org, 'telemetry_destination', destination);
      if (outcome.ok) this.o.log.info({ destination, session: sessionId }, 'telemetry export delivers again');
      else this.o.log.warn({ destination, session: sessionId, reason: outcome.error }, 'telemetry export failing');
    } catch (err) {
      this.o.log.warn({ destination, err: (err as Error).message }, 'recording telemetry export health failed');
    }
  }

  /** Engine stop: every export sends what it has (bounded by its timeout) and closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const id of [...this.running.keys()]) this.end(id);
    while (this.closing.size) await Promise.all([...this.closing]);
  }
}
