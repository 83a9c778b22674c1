/**
 * HTTP through a session's browser (`/curl`, `/curl/raw`): keeps a few hidden requester pages
 * per session, one per recently used origin (see curl-page.ts), and runs each request with a
 * deadline that covers the whole exchange, body included. Pages idle for a minute, or beyond
 * the most recent few origins, are closed; all of them go when the session ends.
 */
import type { Slot } from '../session/session-scope.js';
import { SessionCdpSlot, type SessionCdp } from '../cdp/session-cdp.js';
import { CurlPage, type CurlRequest, type CurlResponse } from './curl-page.js';
import { NetError } from './net-errors.js';

const MAX_PAGES = 4;
const IDLE_MS = 60_000;

export type { CurlRequest, CurlResponse };

export class BrowserCurl {
  private readonly pages = new Map<string, Promise<CurlPage>>();
  private readonly sweep: NodeJS.Timeout;
  private ended = false;

  constructor(private readonly cdp: SessionCdp) {
    this.sweep = setInterval(() => void this.closeIdle(), IDLE_MS / 2);
    this.sweep.unref();
  }

  /**
   * Sends `req`; resolves at the response headers. The deadline (`timeoutMs`) also bounds the
   * body: once it passes, reading the body fails and the browser-side request is cancelled.
   */
  async request(req: CurlRequest, timeoutMs: number, signal?: AbortSignal): Promise<CurlResponse> {
    const deadline = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]);
    const timedOut = () => new NetError('TIMED_OUT', `no complete answer within ${timeoutMs} ms`);
    const origin = new URL(req.url).origin;
    const page = await withDeadline(this.pageFor(origin), deadline, timedOut);
    const res = await page.request(req, deadline).catch((err) => {
      throw deadline.aborted && !signal?.aborted ? timedOut() : err;
    });
    const onDeadline = () => void res.cancel();
    deadline.addEventListener('abort', onDeadline, { once: true });
    const source = res.body;
    async function* body(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of source) {
          if (deadline.aborted) throw timedOut();
          yield chunk;
        }
        if (deadline.aborted) throw timedOut();
      } finally {
        deadline.removeEventListener('abort', onDeadline);
        await res.cancel();
      }
    }
    return { ...res, body: body() };
  }

  private pageFor(origin: string): Promise<CurlPage> {
    if (this.ended) return Promise.reject(new NetError('CONTEXT_SHUT_DOWN'));
    const existing = this.pages.get(origin);
    if (existing) {
      // Re-insert: the map's order is least- to most-recently used.
      this.pages.delete(origin);
      this.pages.set(origin, existing);
      return existing.then((p) => (p.alive ? p : this.reopen(origin)));
    }
    const created = CurlPage.open(this.cdp, origin);
    this.pages.set(origin, created);
    created.catch(() => this.pages.get(origin) === created && this.pages.delete(origin));
    void this.trim();
    return created;
  }

  private reopen(origin: string): Promise<CurlPage> {
    this.pages.delete(origin);
    return this.pageFor(origin);
  }

  private async trim(): Promise<void> {
    for (const [origin, p] of this.pages) {
      if (this.pages.size <= MAX_PAGES) break;
      const page = await p.catch(() => undefined);
      if (page && page.inFlight > 0) continue;
      this.pages.delete(origin);
      await page?.close();
    }
  }

  private async closeIdle(): Promise<void> {
    for (const [origin, p] of this.pages) {
      const page = await p.catch(() => undefined);
      if (page && page.inFlight === 0 && Date.now() - page.lastUsed > IDLE_MS) {
        this.pages.delete(origin);
        await page.close();
      }
    }
  }

  async close(): Promise<void> {
    this.ended = true;
    clearInterval(this.sweep);
    const pages = [...this.pages.values()];
    this.pages.clear();
    await Promise.all(pages.map((p) => p.then((page) => page.close()).catch(() => {})));
  }
}

/** The session's requester pages: `handle.scope.get(BrowserCurlSlot)`, made on the first request, closed with the session. */
export const BrowserCurlSlot: Slot<BrowserCurl> = {
  name: 'browser-curl',
  create: (scope) => new BrowserCurl(scope.get(SessionCdpSlot)),
  close: (c) => c.close(),
};

function withDeadline<T>(p: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(error());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(error());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
