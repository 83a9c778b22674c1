/**
 * The OTLP/HTTP export of one session's telemetry to one destination. It subscribes to the
 * session's telemetry buffer and hands every event to an OpenTelemetry `LoggerProvider` (resource:
 * `service.name=browserdeck`, `session.id`) whose `BatchLogRecordProcessor` batches them into a
 * bounded queue (full: the newest are dropped, the session is never slowed) and whose
 * `OTLPLogExporter` POSTs `<endpoint>/v1/logs`, retrying 429/502/503/504 and network errors with
 * backoff within the export timeout. Endpoint and headers are read from the destination before
 * every batch, so a PATCH (a rotated key) applies to running sessions. Each batch's outcome is
 * reported (delivery health). Connections go through an agent of its own whose `lookup` applies
 * the engine's host policy; `close` flushes within a bound and destroys that agent.
 */
import http from 'node:http';
import https from 'node:https';
import { LoggerProvider, BatchLogRecordProcessor, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SessionTelemetry } from './session-telemetry.js';
import { logRecordOf } from './otlp-log-record.js';
import type { OtlpHostPolicy } from './otlp-host-policy.js';

type ExportResult = Parameters<Parameters<LogRecordExporter['export']>[1]>[0];
const SUCCESS = 0;
const FAILED = 1;

export interface OtlpTarget {
  endpoint: string;
  headers: Record<string, string>;
}

export type ExportOutcome = { ok: true; records: number } | { ok: false; error: string };

export interface OtlpSessionExportOptions {
  sessionId: string;
  serviceVersion: string;
  policy: OtlpHostPolicy;
  /** The destination's endpoint and headers now (undefined: it is gone). */
  target: () => Promise<OtlpTarget | undefined>;
  onOutcome: (o: ExportOutcome) => void;
  /** Events queued at most (beyond: dropped). */
  maxQueue?: number;
  /** Batch interval. */
  delayMs?: number;
  /** One batch's time budget, retries included. */
  timeoutMs?: number;
  /** Replay retained events after this seq (0: all retained). */
  after?: number;
}

/** A failure as a short text without response bodies or header values. */
export function describeFailure(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; name?: unknown } | undefined;
  if (typeof e?.code === 'number') return `HTTP ${e.code}${typeof e.message === 'string' && e.message ? ` ${e.message.slice(0, 100)}` : ''}`;
  if (typeof e?.code === 'string') {
    if (e.code === 'EOTLPDENIED' && typeof e.message === 'string') return e.message.slice(0, 300);
    return `${e.code}: the collector could not be reached`;
  }
  const msg = typeof e?.message === 'string' ? e.message : String(err);
  return /timed? ?out/i.test(msg) ? 'timed out waiting for the collector' : msg.split('\n')[0].slice(0, 200);
}

/** The exporter the processor sees: finds the destination's current target per batch, rebuilds on an endpoint change. */
class DestinationExporter implements LogRecordExporter {
  private inner?: { endpoint: string; exporter: OTLPLogExporter; agent: http.Agent };
  private headers: Record<string, string> = {};
  private closed = false;

  constructor(private readonly o: OtlpSessionExportOptions) {}

  export(logs: ReadableLogRecord[], done: (r: ExportResult) => void): void {
    this.send(logs).then(
      (r) => {
        this.o.onOutcome(r.code === SUCCESS ? { ok: true, records: logs.length } : { ok: false, error: describeFailure(r.error) });
        done(r);
      },
      (err: unknown) => {
        this.o.onOutcome({ ok: false, error: describeFailure(err) });
        done({ code: FAILED, error: err as Error });
      },
    );
  }

  private async send(logs: ReadableLogRecord[]): Promise<ExportResult> {
    if (this.closed) return { code: FAILED, error: new Error('export closed') };
    const t = await this.o.target();
    if (!t) return { code: FAILED, error: new Error('the destination no longer exists') };
    // Per connection the agent's lookup checks each address; an IP literal has no lookup.
    const refused = this.o.policy.sendRefusal(t.endpoint);
    if (refused) return { code: FAILED, error: Object.assign(new Error(refused), { code: 'EOTLPDENIED' }) };
    this.headers = t.headers;
    const exporter = this.exporterFor(t.endpoint);
    return new Promise((resolve) => exporter.export(logs, resolve));
  }

  private exporterFor(endpoint: string): OTLPLogExporter {
    if (this.inner?.endpoint === endpoint) return this.inner.exporter;
    this.dropInner();
    const url = new URL(`${endpoint}/v1/logs`);
    const lookup = this.o.policy.lookupFor(url.hostname);
    const guarded: typeof lookup = (host, opts, cb) =>
      this.closed ? cb(Object.assign(new Error('export closed'), { code: 'ECANCELED' }), '') : lookup(host, opts, cb);
    const agentOpts = { keepAlive: true, maxSockets: 2, lookup: guarded as never };
    const agent = url.protocol === 'https:' ? new https.Agent(agentOpts) : new http.Agent(agentOpts);
    const exporter = new OTLPLogExporter({
      url: url.toString(),
      headers: async () => this.headers,
      timeoutMillis: this.o.timeoutMs ?? 10_000,
      concurrencyLimit: 4,
      httpAgentOptions: () => agent,
    });
    this.inner = { endpoint, exporter, agent };
    return exporter;
  }

  private dropInner(): void {
    const old = this.inner;
    this.inner = undefined;
    if (!old) return;
    void old.exporter.shutdown().finally(() => old.agent.destroy());
  }

  async forceFlush(): Promise<void> {
    await this.inner?.exporter.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.inner?.exporter.shutdown();
  }

  /** No more connections; open sockets are destroyed. */
  destroy(): void {
    this.closed = true;
    this.inner?.agent.destroy();
  }
}

export class OtlpSessionExport {
  private readonly provider: LoggerProvider;
  private readonly exporter: DestinationExporter;
  /** Set once subscribed; `close` may run during `subscribe` (a buffer already closed ends it at once). */
  private unsubscribe = (): void => {};
  private closing?: Promise<void>;

  constructor(
    tel: SessionTelemetry,
    private readonly o: OtlpSessionExportOptions,
  ) {
    this.exporter = new DestinationExporter(o);
    const timeoutMs = o.timeoutMs ?? 10_000;
    this.provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'browserdeck', 'service.version': o.serviceVersion, 'session.id': o.sessionId }),
      processors: [
        new BatchLogRecordProcessor({
          exporter: this.exporter,
          maxQueueSize: o.maxQueue ?? 2048,
          maxExportBatchSize: 512,
          scheduledDelayMillis: o.delayMs ?? 1000,
          exportTimeoutMillis: timeoutMs + 1000,
        }),
      ],
    });
    const logger = this.provider.getLogger('browserdeck.telemetry');
    const sub = tel.buffer.subscribe((e) => logger.emit(logRecordOf(o.sessionId, { seq: e.seq, event: e.item })), {
      after: o.after ?? 0,
      // The session ended: its last events are in the queue; send them and close.
      end: () => void this.close(),
    });
    this.unsubscribe = () => sub.unsubscribe();
  }

  /**
   * Stops following the session, sends what is queued (one last batch within the export
   * timeout) and closes every connection. Idempotent; never rejects.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.unsubscribe();
      const bound = (this.o.timeoutMs ?? 10_000) + 1000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.provider.shutdown().catch(() => {}), new Promise<void>((r) => (timer = setTimeout(r, bound)))]);
      clearTimeout(timer);
      this.exporter.destroy();
    })();
    return this.closing;
  }
}
