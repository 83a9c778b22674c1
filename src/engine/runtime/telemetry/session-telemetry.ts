/**
 * The telemetry of one session: its sequenced ring buffer (`events/sequenced-buffer.ts`), the
 * per-category switches (the session's telemetry config, replaced live on PATCH), and `emit`,
 * which every producer calls — CDP collector, API hook, CDP proxy and live-view signals,
 * supervisor, recorder. An event of a disabled category is dropped at the door, so a disabled
 * session's stream stays open but silent. `monitor` events (about the collector itself) are
 * always recorded.
 */
import { SequencedBuffer } from '../../events/sequenced-buffer.js';
import { RESPONSE_CAPTURE_LIMITS, ResponseCapture } from './response-capture.js';
import { boundData, type EventCategory, type TelemetryCategory, type TelemetryEnvelope, type TelemetryEvent, type TelemetrySource } from './telemetry-event.js';

/**
 * `network.bodies` (an engine option): keep response bodies for the HAR export;
 * `control.cdp.excluded_methods`: the `cdp_command` methods left out of the stream.
 */
export type CategorySwitches = Record<TelemetryCategory, { enabled: boolean }> & {
  network: { bodies?: boolean };
  control: { cdp?: { excluded_methods: readonly string[] } };
};

export interface EmitOptions {
  source: TelemetrySource;
  data?: Record<string, unknown>;
  /** Event time in ms since the epoch (default now). */
  atMs?: number;
  /** Per-field string limits beyond the default (e.g. `body`, `png`). */
  stringLimits?: Record<string, number>;
}

export class SessionTelemetry {
  readonly buffer: SequencedBuffer<TelemetryEvent>;
  private switches: CategorySwitches;
  private readonly configListeners = new Set<(s: CategorySwitches) => void | Promise<void>>();
  /** Each response's end, size and (when asked) body, for the HAR export. */
  readonly responses: ResponseCapture;
  endedAt?: number;

  constructor(
    readonly sessionId: string,
    switches: CategorySwitches,
    opts: { capacity: number; maxBytes: number },
    private readonly nowMs: () => number,
  ) {
    this.switches = clone(switches);
    this.buffer = new SequencedBuffer<TelemetryEvent>({ capacity: opts.capacity, maxBytes: opts.maxBytes });
    // A HAR pairs a finished response with its events: no more can matter than the buffer holds.
    this.responses = new ResponseCapture({ ...RESPONSE_CAPTURE_LIMITS, finished: Math.min(RESPONSE_CAPTURE_LIMITS.finished, opts.capacity) });
  }

  get config(): CategorySwitches {
    return this.switches;
  }

  enabled(c: EventCategory): boolean {
    return c === 'monitor' || !!this.switches[c]?.enabled;
  }

  /** Whether `cdp_command` events of this method are left out (`control.cdp.excluded_methods`). */
  excludes(method: string): boolean {
    return this.switches.control.cdp?.excluded_methods.includes(method) ?? false;
  }

  /**
   * Replaces the switches (PATCH) and tells the collectors so they enable/disable CDP domains;
   * resolves once they have (a listener's failure is theirs to report, not the caller's).
   */
  async setConfig(switches: CategorySwitches): Promise<void> {
    const before = JSON.stringify(this.switches);
    this.switches = clone(switches);
    if (JSON.stringify(this.switches) === before) return;
    await Promise.all(
      [...this.configListeners].map(async (fn) => {
        try {
          await fn(this.switches);
        } catch {
          /* the collector reports its own failures as monitor events */
        }
      }),
    );
  }

  onConfig(fn: (s: CategorySwitches) => void | Promise<void>): () => void {
    this.configListeners.add(fn);
    return () => this.configListeners.delete(fn);
  }

  /** Records an event when its category is on; returns its seq (0 when dropped). */
  emit(category: EventCategory, type: string, o: EmitOptions): number {
    if (this.buffer.closed || !this.enabled(category)) return 0;
    const event: TelemetryEvent = { category, type, ts: Math.round((o.atMs ?? this.nowMs()) * 1000), source: o.source };
    if (o.data) {
      const b = boundData(o.data, o.stringLimits);
      event.data = b.data;
      if (b.truncated) event.truncated = true;
    }
    return this.buffer.push(event);
  }

  /** Retained envelopes, oldest first. */
  envelopes(): TelemetryEnvelope[] {
    return this.buffer.retained().map((e) => ({ seq: e.seq, event: e.item }));
  }

  end(atMs: number): void {
    this.endedAt = atMs;
    this.configListeners.clear();
    this.buffer.close();
    this.responses.end();
  }
}

function clone(s: CategorySwitches): CategorySwitches {
  return JSON.parse(JSON.stringify(s)) as CategorySwitches;
}
