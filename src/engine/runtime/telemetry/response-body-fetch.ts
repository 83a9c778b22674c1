/**
 * Records each finished response of a watched tab in the session's `ResponseCapture` and, for a
 * session that asked for bodies (`telemetry.browser.network.bodies`), fetches the body with
 * `Network.getResponseBody` over the collector's own connection. Fetches run a few at a time
 * from a bounded queue: a page finishing hundreds of requests at once, or a huge one, costs the
 * engine a bounded amount of memory, and what does not fit is marked as skipped rather than
 * held. Sessions that did not ask never fetch a body.
 */
import type { Protocol } from 'devtools-protocol';
import type { CdpConnection } from '../chromium/cdp-connection.js';
import type { ResponseCapture } from './response-capture.js';

/** Bodies being fetched at once (each up to `fetchMax` bytes while it is cut). */
const CONCURRENT = 4;
/** Finished responses waiting for a fetch; more are skipped as `busy`. */
const QUEUED = 500;
const FETCH_TIMEOUT_MS = 10_000;

export class ResponseBodyFetch {
  private running = 0;
  private readonly queue: Array<() => Promise<void>> = [];

  constructor(
    private readonly capture: ResponseCapture,
    /** Whether the session asks for bodies now (read at each response: PATCH turns it on and off). */
    private readonly wanted: () => boolean,
  ) {}

  dataReceived(p: Protocol.Network.DataReceivedEvent): void {
    this.capture.dataReceived(p.requestId, p.dataLength || 0);
  }

  loadingFailed(p: Protocol.Network.LoadingFailedEvent): void {
    this.capture.loadingFailed(p.requestId);
  }

  /** `Network.loadingFinished` of a tab, on the connection and CDP session that reported it. */
  loadingFinished(conn: CdpConnection, sessionId: string, p: Protocol.Network.LoadingFinishedEvent): void {
    const id = p.requestId;
    const f = this.capture.loadingFinished(id, p.timestamp, p.encodedDataLength || 0);
    if (!this.wanted()) return;
    if (!this.capture.worthFetching(f)) return this.capture.skipBody(id, 'too_large');
    if (this.queue.length >= QUEUED) return this.capture.skipBody(id, 'busy');
    this.queue.push(() =>
      conn.send('Network.getResponseBody', { requestId: id }, { sessionId, timeoutMs: FETCH_TIMEOUT_MS }).then(
        (r) => this.capture.keepBody(id, r.body, r.base64Encoded),
        // Evicted from Chromium's own buffer, a body-less answer, or the tab closed.
        () => this.capture.skipBody(id, 'unavailable'),
      ),
    );
    this.pump();
  }

  private pump(): void {
    while (this.running < CONCURRENT && this.queue.length) {
      const next = this.queue.shift()!;
      this.running++;
      void next().finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The connection went away: queued fetches would only fail. */
  drop(): void {
    this.queue.length = 0;
  }
}
