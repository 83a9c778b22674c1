/**
 * One shared engine-side CDP connection per session (computer input, screenshots, clipboard,
 * curl), opened on first use, reopened after a browser restart and closed when the session
 * ends. It tracks the session's page targets and names the "active" one with the same rule
 * as the screencast pump — the newest page, falling back to the previous one when it
 * closes — so that input lands on the page the live view and replays show.
 */
import type { Protocol } from 'devtools-protocol';
import type { SessionHandle } from '../session/session-handle.js';
import type { Slot } from '../session/session-scope.js';
import { CdpConnection } from '../chromium/cdp-connection.js';
import type { CdpEvent, CdpEventParams, CdpMethod, CdpParams, CdpResult } from '../chromium/cdp-types.js';

export interface PageTarget {
  targetId: string;
  /** Flattened CDP session id of our attachment to the page. */
  sessionId: string;
}

export class SessionCdp {
  private conn?: Promise<CdpConnection>;
  private readonly pages = new Map<string, { seq: number; sessionId?: Promise<string> }>();
  private seq = 0;
  private closed = false;
  private readonly resetListeners = new Set<() => void>();

  constructor(readonly handle: SessionHandle) {
    handle.onBrowserRestart(() => this.reset());
  }

  /** The live connection, connecting (or reconnecting after a restart) when needed. */
  connection(): Promise<CdpConnection> {
    if (this.closed) return Promise.reject(new Error('session ended'));
    if (!this.conn) {
      const p = this.open();
      this.conn = p;
      p.then(
        (c) => void c.closed.then(() => this.conn === p && this.reset()),
        () => this.conn === p && (this.conn = undefined),
      );
    }
    return this.conn;
  }

  /** Sends a command on the browser connection (to a page when `sessionId` is given). */
  async send<M extends CdpMethod>(method: M, params?: CdpParams<M>, sessionId?: string, timeoutMs?: number): Promise<CdpResult<M>> {
    const c = await this.connection();
    return c.send(method, params, { sessionId, timeoutMs });
  }

  /** Listens to an event of the current connection; listeners are dropped on reconnect. */
  async on<E extends CdpEvent>(event: E, fn: (params: CdpEventParams<E>, sessionId?: string) => void): Promise<() => void> {
    const c = await this.connection();
    return c.on(event, fn);
  }

  /** Called when the connection is replaced (browser restart): attachments made on it are gone. */
  onReset(fn: () => void): () => void {
    this.resetListeners.add(fn);
    return () => this.resetListeners.delete(fn);
  }

  /** The page input and screenshots go to; throws when the browser has no page open. */
  async activePage(): Promise<PageTarget> {
    await this.connection();
    const newest = [...this.pages.entries()].sort((a, b) => b[1].seq - a[1].seq)[0];
    if (!newest) throw new Error('the browser has no open page');
    const [targetId, page] = newest;
    if (!page.sessionId) {
      page.sessionId = this.send('Target.attachToTarget', { targetId, flatten: true }).then((r) => r.sessionId);
      page.sessionId.catch(() => (page.sessionId = undefined));
    }
    return { targetId, sessionId: await page.sessionId };
  }

  private async open(): Promise<CdpConnection> {
    await this.handle.ready();
    const c = await CdpConnection.connect(this.handle.browserCdpUrl());
    if (this.closed) {
      c.close();
      throw new Error('session ended');
    }
    c.on('Target.targetCreated', (p) => this.onTarget(p.targetInfo));
    c.on('Target.targetInfoChanged', (p) => this.onTarget(p.targetInfo));
    c.on('Target.targetDestroyed', (p) => this.pages.delete(p.targetId));
    c.on('Target.detachedFromTarget', (p) => {
      for (const page of this.pages.values()) void page.sessionId?.then((s) => s === p.sessionId && (page.sessionId = undefined)).catch(() => {});
    });
    await c.send('Target.setDiscoverTargets', { discover: true });
    return c;
  }

  private onTarget(t: Protocol.Target.TargetInfo): void {
    // Hidden helper targets (curl, clipboard) have type "other" and are never active.
    if (t.type !== 'page' || this.pages.has(t.targetId)) return;
    this.pages.set(t.targetId, { seq: ++this.seq });
  }

  private reset(): void {
    const old = this.conn;
    this.conn = undefined;
    this.pages.clear();
    void old?.then((c) => c.close()).catch(() => {});
    for (const fn of this.resetListeners) fn();
  }

  close(): void {
    if (this.closed) return;
    this.reset();
    this.closed = true;
    this.resetListeners.clear();
  }
}

/**
 * The session's shared client: `handle.scope.get(SessionCdpSlot)`, made on first use, closed with
 * the session. Slots are written as `Slot` literals rather than with `defineSlot`: a type-only
 * import of session/session-scope.ts keeps services' folders from importing runtime/session/
 * (whose session-runtime.ts imports most of runtime/) for code, which would close folder cycles.
 */
export const SessionCdpSlot: Slot<SessionCdp> = { name: 'session-cdp', create: (scope) => new SessionCdp(scope.handle), close: (c) => c.close() };
