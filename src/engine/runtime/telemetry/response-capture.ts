/**
 * What a HAR needs of each response beyond its telemetry events, kept per session while it
 * runs: when its body finished loading and how big it really was (for every response while
 * network telemetry is on; a few numbers each), and — only for a session that asked
 * (`telemetry.browser.network.bodies`) — the body itself. Bodies live outside the event stream
 * (Kernel's `network_response` carries none of this size) in a bounded budget: each kept body is
 * cut at 1 MiB (the largest `max_body_bytes` a HAR may ask), and the session keeps at most
 * `bodyBytes` and `bodies` of them, the oldest dropped first, so a session loading video cannot
 * grow the engine. `end()` runs when the session ends.
 */

export interface ResponseCaptureLimits {
  /** Bytes of one body that are kept (the rest is only counted). */
  perBody: number;
  /** Total kept body bytes of the session. */
  bodyBytes: number;
  /** Bodies kept per session. */
  bodies: number;
  /** Finished responses remembered per session (timing and size only). */
  finished: number;
  /** A response bigger than this is not fetched from the browser at all. */
  fetchMax: number;
}

export const RESPONSE_CAPTURE_LIMITS: ResponseCaptureLimits = {
  perBody: 1024 * 1024,
  bodyBytes: 16 * 1024 * 1024,
  bodies: 1_000,
  finished: 20_000,
  fetchMax: 4 * 1024 * 1024,
};

export interface FinishedResponse {
  /** Chromium's monotonic seconds at `Network.loadingFinished`. */
  finishedS: number;
  /** Bytes received on the wire (Chromium's `encodedDataLength`). */
  encodedBytes: number;
  /** Decoded body bytes (sum of `Network.dataReceived`), -1 when Chromium reported none. */
  decodedBytes: number;
}

export interface CapturedBody {
  /** The kept start of the body (at most `perBody` bytes). */
  bytes: Buffer;
  /** Chromium sent it base64-encoded: binary, shown as base64 in the HAR. */
  binary: boolean;
  /** The body's true size in bytes. */
  size: number;
}

/** Why a finished response has no body, for the HAR entry's comment. */
export type BodySkip = 'too_large' | 'unavailable' | 'busy' | 'evicted';

export class ResponseCapture {
  private readonly received = new Map<string, number>();
  private readonly finishedById = new Map<string, FinishedResponse>();
  private readonly bodiesById = new Map<string, CapturedBody>();
  private readonly skipped = new Map<string, BodySkip>();
  private keptBytes = 0;
  private ended = false;

  constructor(readonly limits: ResponseCaptureLimits = RESPONSE_CAPTURE_LIMITS) {}

  /** `Network.dataReceived`: counts decoded bytes of a response in flight. */
  dataReceived(id: string, bytes: number): void {
    this.received.set(id, (this.received.get(id) ?? 0) + Math.max(0, bytes));
    dropOldest(this.received, this.limits.finished);
  }

  /** `Network.loadingFinished`: remembers when and how big; returns the record. */
  loadingFinished(id: string, finishedS: number, encodedBytes: number): FinishedResponse {
    const f = { finishedS, encodedBytes, decodedBytes: this.received.get(id) ?? -1 };
    this.received.delete(id);
    this.finishedById.delete(id);
    this.finishedById.set(id, f);
    dropOldest(this.finishedById, this.limits.finished);
    return f;
  }

  /** `Network.loadingFailed`: nothing more will come for it. */
  loadingFailed(id: string): void {
    this.received.delete(id);
  }

  /** Whether a finished response is small enough to fetch its body. */
  worthFetching(f: FinishedResponse): boolean {
    return Math.max(f.decodedBytes, f.encodedBytes) <= this.limits.fetchMax;
  }

  /** Keeps a body fetched with `Network.getResponseBody`, cut at `perBody`, within the session's budget. */
  keepBody(id: string, body: string, base64Encoded: boolean): void {
    if (this.ended) return; // a fetch that answered after the session ended
    const all = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
    // A copy, so the kept slice does not pin the whole decoded body in memory.
    const bytes = all.length > this.limits.perBody ? Buffer.from(all.subarray(0, this.limits.perBody)) : all;
    this.forgetBody(id);
    this.bodiesById.set(id, { bytes, binary: base64Encoded, size: all.length });
    this.keptBytes += bytes.length;
    for (const oldest of this.bodiesById.keys()) {
      if (this.keptBytes <= this.limits.bodyBytes && this.bodiesById.size <= this.limits.bodies) break;
      this.forgetBody(oldest);
      this.skipBody(oldest, 'evicted');
    }
  }

  skipBody(id: string, why: BodySkip): void {
    this.skipped.set(id, why);
    dropOldest(this.skipped, this.limits.finished);
  }

  finished(id: string): FinishedResponse | undefined {
    return this.finishedById.get(id);
  }

  body(id: string): CapturedBody | undefined {
    return this.bodiesById.get(id);
  }

  skippedBody(id: string): BodySkip | undefined {
    return this.skipped.get(id);
  }

  /** Bytes of bodies held now (what the budget bounds). */
  get bodyBytes(): number {
    return this.keptBytes;
  }

  /** The session ended: releases every kept body and keeps no more; timings and sizes stay with its telemetry. */
  end(): void {
    this.ended = true;
    this.bodiesById.clear();
    this.skipped.clear();
    this.received.clear();
    this.keptBytes = 0;
  }

  private forgetBody(id: string): void {
    const b = this.bodiesById.get(id);
    if (!b) return;
    this.keptBytes -= b.bytes.length;
    this.bodiesById.delete(id);
  }
}

function dropOldest<V>(m: Map<string, V>, max: number): void {
  for (const k of m.keys()) {
    if (m.size <= max) return;
    m.delete(k);
  }
}
