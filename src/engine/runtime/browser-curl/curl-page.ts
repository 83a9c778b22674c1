/**
 * One origin's requester: a hidden page sitting on the target's origin (a synthetic, locally
 * answered document — see hidden-page.ts) that issues each request as a same-origin `fetch`
 * with `credentials: 'include'`. Same-origin means no CORS and first-party cookies, so the
 * request is what the browser itself would send: its cookie jar (and Set-Cookie stored back
 * into it), user agent, client hints, proxy and TLS stack. CDP `Fetch` interception then
 * applies the caller's headers (any header, including Cookie/Referer that page scripts may
 * not set), and takes the response at the headers stage — status, raw headers including
 * Set-Cookie, and the body as a stream (`Fetch.takeResponseBodyAsStream` + `IO.read`),
 * binary-safe and never buffered whole. Redirects are not followed (like curl).
 */
import { NET_ERROR_HEADER } from '../proxy-forwarder/local-forwarder.js';
import { randomUUID } from 'node:crypto';
import { HiddenPage, type HiddenPageEvent, type PausedRequest } from '../cdp/hidden-page.js';
import type { SessionCdp } from '../cdp/session-cdp.js';
import { EGRESS_DENIED, NetError, proxyRefusalDetail } from './net-errors.js';

const MARKER = 'x-browserdeck-curl';
const READ_CHUNK = 256 * 1024;

export interface CurlRequest {
  url: string;
  method: string;
  /** Caller's headers; they replace the browser's headers of the same name. */
  headers: Record<string, string>;
  body?: Buffer;
}

export interface CurlResponse {
  status: number;
  statusText: string;
  /** Raw response headers in order, repeated names kept (Set-Cookie included). */
  headers: [string, string][];
  body: AsyncIterable<Buffer>;
  /** Stops reading the body and releases the browser-side request. */
  cancel(): Promise<void>;
}

/** The caller's request cannot be sent as given (→ 400). */
export class CurlInputError extends Error {}

interface Pending {
  req: CurlRequest;
  networkId?: string;
  rawHeaders?: [string, string][];
  settled: boolean;
  resolve(r: CurlResponse): void;
  reject(e: Error): void;
}

export class CurlPage {
  private readonly pending = new Map<string, Pending>();
  private readonly byNetworkId = new Map<string, Pending>();
  inFlight = 0;
  lastUsed = Date.now();

  private constructor(private page: HiddenPage) {}

  static async open(cdp: SessionCdp, origin: string): Promise<CurlPage> {
    // Events can only arrive once the page exists; the holder bridges the construction order.
    const ref: { self?: CurlPage } = {};
    const page = await HiddenPage.open(
      cdp,
      (p) => ref.self?.onPaused(p),
      (e) => ref.self?.onNetwork(e),
    );
    const self = (ref.self = new CurlPage(page));
    try {
      await page.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
      // A service worker of the origin must not answer in the network's place.
      await page.send('Network.setBypassServiceWorker', { bypass: true });
      await page.goto(origin);
    } catch (err) {
      await page.close();
      const net = (err as { netError?: string }).netError;
      throw net ? new NetError(net) : err;
    }
    return self;
  }

  get alive(): boolean {
    return this.page.alive;
  }

  /** Sends one request; resolves at the response headers. Abort with `signal` (e.g. a timeout). */
  request(req: CurlRequest, signal: AbortSignal): Promise<CurlResponse> {
    const id = randomUUID();
    this.inFlight++;
    this.lastUsed = Date.now();
    return new Promise<CurlResponse>((resolve, reject) => {
      const p: Pending = { req, settled: false, resolve, reject };
      const settle = (fn: () => void) => {
        if (p.settled) return;
        p.settled = true;
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      p.resolve = (r) =>
        settle(() => {
          this.forget(id, p);
          resolve(r);
        });
      p.reject = (e) =>
        settle(() => {
          this.forget(id, p);
          reject(e);
        });
      const onAbort = () => {
        p.reject(signal.reason instanceof Error ? signal.reason : new NetError('ABORTED'));
        void this.page.evaluate(`window.__bdAbort?.[${JSON.stringify(id)}]?.abort()`).catch(() => {});
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, p);
      void this.page
        .evaluate<string>(fetchScript(id, req))
        .then((outcome) => {
          // The page's fetch ends in an error once we have taken the body; it only matters
          // when the browser refused the request before the network saw it.
          if (outcome !== 'ok' && !p.settled) setTimeout(() => p.reject(new NetError('FAILED', outcome)), 200);
        })
        .catch((err) => p.reject(err));
    }).finally(() => {
      this.inFlight--;
      this.lastUsed = Date.now();
    });
  }

  private forget(id: string, p: Pending): void {
    this.pending.delete(id);
    if (p.networkId) this.byNetworkId.delete(p.networkId);
  }

  private onNetwork(e: HiddenPageEvent): void {
    if (e.method === 'Network.requestWillBeSent') {
      const id = headerValue(e.params.request.headers, MARKER);
      const p = id ? this.pending.get(id) : undefined;
      if (p && !p.networkId) this.link(p, e.params.requestId);
      return;
    }
    const p = this.byNetworkId.get(e.params.requestId);
    if (!p) return;
    if (e.method === 'Network.responseReceivedExtraInfo') {
      p.rawHeaders = Object.entries(e.params.headers).flatMap(([k, v]) =>
        String(v)
          .split('\n')
          .map((x): [string, string] => [k, x]),
      );
    } else if (e.method === 'Network.loadingFailed' && !p.settled) {
      p.reject(new NetError(e.params.errorText || 'net::ERR_FAILED'));
    }
  }

  private link(p: Pending, networkId: string): void {
    p.networkId = networkId;
    this.byNetworkId.set(networkId, p);
  }

  private onPaused(paused: PausedRequest): void {
    const atResponse = paused.responseStatusCode !== undefined || paused.responseErrorReason !== undefined;
    if (!atResponse) return void this.atRequest(paused);
    const p = paused.networkId ? this.byNetworkId.get(paused.networkId) : undefined;
    if (!p || p.settled || paused.responseErrorReason) {
      // Failures are reported by Network.loadingFailed with their exact net error.
      return void this.page.send('Fetch.continueRequest', { requestId: paused.requestId }).catch(() => {});
    }
    void this.atResponse(paused, p);
  }

  private async atRequest(paused: PausedRequest): Promise<void> {
    const id = headerValue(paused.request.headers, MARKER);
    const p = id ? this.pending.get(id) : undefined;
    if (!p || p.settled) return void this.page.send('Fetch.failRequest', { requestId: paused.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
    if (paused.networkId && !p.networkId) this.link(p, paused.networkId);
    const headers = new Map<string, { name: string; value: string }>();
    for (const [name, value] of Object.entries(paused.request.headers)) if (name.toLowerCase() !== MARKER) headers.set(name.toLowerCase(), { name, value });
    for (const [name, value] of Object.entries(p.req.headers)) headers.set(name.toLowerCase(), { name, value });
    try {
      await this.page.send('Fetch.continueRequest', { requestId: paused.requestId, headers: [...headers.values()], interceptResponse: true });
    } catch (err) {
      p.reject(new CurlInputError(`the browser refused the request headers: ${(err as Error).message.replace(/^CDP error: /, '')}`));
      await this.page.send('Fetch.failRequest', { requestId: paused.requestId, errorReason: 'Aborted' }).catch(() => {});
    }
  }

  /** The forwarder's refusal text (its 403 body), or undefined when the browser no longer has it. */
  private async refusalOf(requestId: string): Promise<string | undefined> {
    const r = await this.page.send('Fetch.getResponseBody', { requestId }).catch(() => undefined);
    return r && proxyRefusalDetail(r.base64Encoded ? Buffer.from(r.body, 'base64').toString('utf8') : r.body);
  }

  private async atResponse(paused: PausedRequest, p: Pending): Promise<void> {
    // Raw headers (with Set-Cookie) arrive as Network ExtraInfo, normally just before this.
    if (!p.rawHeaders) await new Promise((r) => setImmediate(r));
    const headers = p.rawHeaders ?? (paused.responseHeaders ?? []).map((h): [string, string] => [h.name, h.value]);
    // A jailed browser reaches the network through the engine's egress proxy: a failure there
    // is the proxy's answer, carrying the net error Chromium would have reported itself.
    const netError = headers.find(([k]) => k.toLowerCase() === NET_ERROR_HEADER)?.[1];
    if (netError && paused.responseStatusCode! >= 400) {
      // A refusal by the egress policy says which range and, for this host, which flag opens it: pass its words on.
      p.reject(new NetError(netError, netError === EGRESS_DENIED ? await this.refusalOf(paused.requestId) : undefined));
      return void this.page.send('Fetch.failRequest', { requestId: paused.requestId, errorReason: 'Failed' }).catch(() => {});
    }
    const base = { status: paused.responseStatusCode!, statusText: paused.responseStatusText ?? '', headers };
    const requestId = paused.requestId;
    let stream: string | undefined;
    const status = paused.responseStatusCode!;
    const bodyless = p.req.method === 'HEAD' || status === 204 || status === 304 || (status >= 300 && status < 400);
    if (!bodyless) {
      stream = await this.page
        .send('Fetch.takeResponseBodyAsStream', { requestId })
        .then((r) => r.stream)
        .catch(() => undefined);
    }
    if (!stream) {
      // Answer first: what the page's fetch does with the rest no longer matters to us.
      p.resolve({ ...base, body: emptyBody(), cancel: async () => {} });
      await this.page.send('Fetch.continueRequest', { requestId }).catch(() => {});
      return;
    }
    const handle = stream;
    let done = false;
    const release = async () => {
      if (done) return;
      done = true;
      await this.page.send('IO.close', { handle }).catch(() => {});
      // The page's own fetch is over: we took its body.
      await this.page.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }).catch(() => {});
    };
    const page = this.page;
    async function* body(): AsyncGenerator<Buffer> {
      try {
        while (!done) {
          const r = await page.send('IO.read', { handle, size: READ_CHUNK }, 60_000);
          if (r.data) yield Buffer.from(r.data, r.base64Encoded ? 'base64' : 'utf8');
          if (r.eof) break;
        }
      } finally {
        await release();
      }
    }
    p.resolve({ ...base, body: body(), cancel: release });
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) p.reject(new NetError('ABORTED'));
    await this.page.close();
  }
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

async function* emptyBody(): AsyncGenerator<Buffer> {}

/** The page-side fetch: same-origin, with cookies, not following redirects, never cached. */
function fetchScript(id: string, req: CurlRequest): string {
  const body = req.body && req.body.length > 0 ? `Uint8Array.from(atob(${JSON.stringify(req.body.toString('base64'))}), (c) => c.charCodeAt(0))` : 'undefined';
  return `(async () => {
    const c = new AbortController();
    (window.__bdAbort ||= {})[${JSON.stringify(id)}] = c;
    try {
      await fetch(${JSON.stringify(req.url)}, { method: ${JSON.stringify(req.method)}, headers: { ${JSON.stringify(MARKER)}: ${JSON.stringify(id)} },
        body: ${body}, credentials: 'include', redirect: 'manual', cache: 'no-store', mode: 'same-origin', signal: c.signal });
      return 'ok';
    } catch (e) {
      return String(e && e.message || e);
    } finally {
      delete window.__bdAbort[${JSON.stringify(id)}];
    }
  })()`;
}
