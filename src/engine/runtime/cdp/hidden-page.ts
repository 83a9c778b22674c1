/**
 * A hidden helper page in the session's default browser context: created with
 * `Target.createTarget({hidden: true})`, so it shares the session's cookies, storage,
 * permissions and clipboard but is no tab — Playwright/Puppeteer clients and the screencast
 * never see it (its target type is "other"). It can sit on any origin without touching the
 * network: the navigation is answered locally through CDP `Fetch` with an empty document.
 * Every other request it makes is handed to `onRequest` (paused at the request stage).
 */
import type { SessionCdp } from './session-cdp.js';
import type { CdpEventOf } from '../chromium/cdp-types.js';
import type { CdpMethod, CdpParams, CdpResult } from '../chromium/cdp-types.js';

export interface PausedRequest {
  requestId: string;
  networkId?: string;
  request: { url: string; method: string; headers: Record<string, string> };
  resourceType: string;
  responseStatusCode?: number;
  responseStatusText?: string;
  responseHeaders?: { name: string; value: string }[];
  responseErrorReason?: string;
}

/** The network events a hidden page passes on to its `onEvent`. */
const NETWORK_EVENTS = ['Network.requestWillBeSent', 'Network.loadingFailed', 'Network.responseReceivedExtraInfo'] as const;
export type HiddenPageEvent = CdpEventOf<(typeof NETWORK_EVENTS)[number]>;

export class HiddenPage {
  private origin?: string;
  private dead = false;
  private readonly unsubscribe: (() => void)[] = [];

  private constructor(
    private readonly cdp: SessionCdp,
    readonly targetId: string,
    readonly sessionId: string,
  ) {}

  /**
   * Opens a hidden page. `onRequest` sees every non-navigation request at the request stage
   * and, for requests continued with `interceptResponse`, again at the response stage.
   */
  static async open(cdp: SessionCdp, onRequest?: (p: PausedRequest) => void, onEvent?: (e: HiddenPageEvent) => void): Promise<HiddenPage> {
    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank', background: true, hidden: true });
    let sessionId: string;
    try {
      ({ sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true }));
    } catch (err) {
      await cdp.send('Target.closeTarget', { targetId }).catch(() => {});
      throw err;
    }
    const page = new HiddenPage(cdp, targetId, sessionId);
    page.unsubscribe.push(cdp.onReset(() => (page.dead = true)));
    page.unsubscribe.push(
      await cdp.on('Fetch.requestPaused', (params, sid) => {
        if (sid !== sessionId) return;
        const p: PausedRequest = params;
        if (p.resourceType === 'Document' && p.responseStatusCode === undefined && !p.responseErrorReason) return void page.answerNavigation(p);
        if (onRequest) onRequest(p);
        else void cdp.send('Fetch.continueRequest', { requestId: p.requestId }, sessionId).catch(() => {});
      }),
    );
    if (onEvent) {
      for (const ev of NETWORK_EVENTS) {
        // One listener per name: the pair is the event of that name (TS cannot correlate the unions).
        page.unsubscribe.push(await cdp.on(ev, (params, sid) => sid === sessionId && onEvent({ method: ev, params } as HiddenPageEvent)));
      }
    }
    page.unsubscribe.push(
      await cdp.on('Target.targetDestroyed', (p) => {
        if (p.targetId === targetId) page.dead = true;
      }),
    );
    try {
      await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }, sessionId);
    } catch (err) {
      await page.close();
      throw err;
    }
    return page;
  }

  get alive(): boolean {
    return !this.dead;
  }

  get currentOrigin(): string | undefined {
    return this.origin;
  }

  /** Puts the page on `origin` (an empty synthetic document; nothing is fetched). */
  async goto(origin: string): Promise<void> {
    if (this.origin === origin) return;
    const r = await this.send('Page.navigate', { url: `${origin}/` });
    if (r.errorText) throw Object.assign(new Error(`navigation to ${origin} failed: ${r.errorText}`), { netError: r.errorText });
    // Page.navigate resolves at commit; make sure the document we evaluate in is the new one.
    for (let i = 0; i < 50; i++) {
      const o = await this.evaluate<string>('location.origin').catch(() => '');
      if (o === origin) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    this.origin = origin;
  }

  send<M extends CdpMethod>(method: M, params?: CdpParams<M>, timeoutMs?: number): Promise<CdpResult<M>> {
    return this.cdp.send(method, params, this.sessionId, timeoutMs);
  }

  /** Evaluates an expression (awaiting promises) and returns its JSON value; page exceptions reject. */
  async evaluate<T>(expression: string, timeoutMs?: number): Promise<T> {
    const r = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, timeoutMs);
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? 'evaluation failed');
    return r.result.value as T;
  }

  private answerNavigation(p: PausedRequest): void {
    const body = Buffer.from('<!doctype html><title></title>').toString('base64');
    void this.send('Fetch.fulfillRequest', {
      requestId: p.requestId,
      responseCode: 200,
      responseHeaders: [{ name: 'content-type', value: 'text/html; charset=utf-8' }],
      body,
    }).catch(() => {});
  }

  async close(): Promise<void> {
    this.dead = true;
    for (const u of this.unsubscribe.splice(0)) u();
    await this.cdp.send('Target.closeTarget', { targetId: this.targetId }).catch(() => {});
  }
}
