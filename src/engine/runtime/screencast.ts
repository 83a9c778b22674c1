/**
 * The screencast pump: one CDP `Page.startScreencast` per session, shared by every consumer
 * (live-view viewers, the replay recorder). It follows the session's active tab — the newest
 * page target, falling back to the previous one when it closes — and reattaches after a tab
 * change or a browser restart. Consumers `subscribeScreencast(handle, opts)` and iterate JPEG
 * frames with timestamps; a slow consumer drops its oldest unread frames instead of holding
 * the browser back. A new consumer first gets the last frame already shown (a static page
 * paints only once; its `timestamp` tells how old it is). The pump also sends input to the
 * page it shows (live view).
 */
import type { CdpMethod, CdpParams, CdpResult } from './chromium/cdp-types.js';
import type { SessionHandle } from './session/session-handle.js';
import type { Slot } from './session/session-scope.js';
import { CdpConnection } from './chromium/cdp-connection.js';

export interface ScreencastOptions {
  maxWidth?: number;
  maxHeight?: number;
  /** JPEG quality 0–100. */
  quality?: number;
  everyNthFrame?: number;
  /** Unread frames kept per consumer before the oldest is dropped (default 2). */
  buffer?: number;
}

export interface FrameMetadata {
  /** Page size in CSS pixels: input coordinates are in this space. */
  deviceWidth: number;
  deviceHeight: number;
  pageScaleFactor: number;
  offsetTop: number;
  scrollOffsetX: number;
  scrollOffsetY: number;
}

export interface ScreencastFrame {
  /** JPEG bytes, base64 (as CDP delivers them; decode with `Buffer.from(data, 'base64')`). */
  data: string;
  /** Wall-clock capture time, milliseconds since the epoch. */
  timestamp: number;
  metadata: FrameMetadata;
  targetId: string;
}

export interface PageInfo {
  targetId: string;
  url: string;
  title: string;
}

export interface ScreencastSubscription extends AsyncIterable<ScreencastFrame> {
  /** The page currently shown, if any. */
  readonly page: PageInfo | undefined;
  /** Called when the shown page changes (tab switch, navigation, title). */
  onPage(fn: (page: PageInfo | undefined) => void): () => void;
  /** Changes this consumer's options (e.g. after a viewport change); the shared cast restarts if needed. */
  update(opts: ScreencastOptions): void;
  /** Sends a CDP command to the shown page (input events). Rejects when no page is attached. */
  sendToPage<M extends CdpMethod>(method: M, params: CdpParams<M>): Promise<CdpResult<M>>;
  close(): void;
}

interface Consumer {
  opts: Required<Omit<ScreencastOptions, 'buffer'>>;
  queue: ScreencastFrame[];
  limit: number;
  wake?: () => void;
  closed: boolean;
  pageListeners: Set<(p: PageInfo | undefined) => void>;
}

const TITLE_POLL_MS = 1000;

/** The session's running pump, if any: the first subscriber starts one, the last one stops it. */
class SessionScreencast {
  pump?: ScreencastPump;
}

/** Where a session's pump is kept (the pump itself ends when the session does). */
const ScreencastSlot: Slot<SessionScreencast> = { name: 'screencast', create: () => new SessionScreencast() };

/** Subscribes to a session's screencast; the first subscriber starts it, the last one stops it. */
export function subscribeScreencast(handle: SessionHandle, opts: ScreencastOptions = {}): ScreencastSubscription {
  // A session already ended gets a pump of its own that closes at once (its subscription ends).
  if (handle.scope.closed) return new ScreencastPump(handle, () => {}).subscribe(opts);
  const cast = handle.scope.get(ScreencastSlot);
  let pump = cast.pump;
  if (!pump) {
    const created: ScreencastPump = new ScreencastPump(handle, (): void => {
      if (cast.pump === created) cast.pump = undefined;
    });
    pump = cast.pump = created;
  }
  return pump.subscribe(opts);
}

/**
 * Shows `targetId` from now on (a client activated that tab: `/json/activate`, the console's tab
 * switcher): it becomes the pump's newest page, as if just opened. Without a pump (no viewer, no
 * recording) there is nothing to switch; one started later shows the newest page.
 */
export function showTab(handle: Pick<SessionHandle, 'scope'>, targetId: string): void {
  if (handle.scope.closed) return;
  handle.scope.get(ScreencastSlot).pump?.show(targetId);
}

class ScreencastPump {
  private readonly consumers = new Set<Consumer>();
  private cdp?: CdpConnection;
  private readonly pages = new Map<string, PageInfo & { seq: number }>();
  private seq = 0;
  private active?: { targetId: string; sessionId: string };
  private settings = '';
  private lastFrame?: ScreencastFrame;
  private generation = 0;
  private closed = false;
  private readonly unsubscribeRestart: () => void;
  private switching: Promise<void> = Promise.resolve();
  /** Titles set by script do not raise targetInfoChanged; a light poll keeps them current. */
  private readonly titlePoll: NodeJS.Timeout;

  constructor(
    private readonly handle: SessionHandle,
    private readonly onClosed: () => void,
  ) {
    this.unsubscribeRestart = handle.onBrowserRestart(() => void this.connect());
    if (handle.signal.aborted) queueMicrotask(() => this.close());
    else handle.signal.addEventListener('abort', () => this.close(), { once: true });
    this.titlePoll = setInterval(() => void this.refreshActiveInfo(), TITLE_POLL_MS);
    this.titlePoll.unref();
    void this.connect();
  }

  private optionsOf(o: ScreencastOptions): Consumer['opts'] {
    return {
      maxWidth: clampInt(o.maxWidth ?? this.handle.viewport.width, 16, 4096),
      maxHeight: clampInt(o.maxHeight ?? this.handle.viewport.height, 16, 4096),
      quality: clampInt(o.quality ?? 60, 0, 100),
      everyNthFrame: clampInt(o.everyNthFrame ?? 1, 1, 60),
    };
  }

  subscribe(o: ScreencastOptions): ScreencastSubscription {
    const c: Consumer = {
      opts: this.optionsOf(o),
      queue: [],
      limit: clampInt(o.buffer ?? 2, 1, 1000),
      closed: this.closed,
      pageListeners: new Set(),
    };
    // A static page paints once: a new viewer starts from the last frame instead of a blank screen.
    if (this.lastFrame && this.lastFrame.targetId === this.active?.targetId) c.queue.push(this.lastFrame);
    this.consumers.add(c);
    void this.restartIfSettingsChanged();
    const currentPage = () => this.currentPage();
    return {
      get page() {
        return currentPage();
      },
      onPage(fn) {
        c.pageListeners.add(fn);
        return () => c.pageListeners.delete(fn);
      },
      update: (opts) => {
        c.opts = this.optionsOf(opts);
        void this.restartIfSettingsChanged();
      },
      sendToPage: (method, params) => this.sendToPage(method, params),
      close: () => this.removeConsumer(c),
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<ScreencastFrame>> => {
          for (;;) {
            const f = c.queue.shift();
            if (f) return { value: f, done: false };
            if (c.closed) return { value: undefined, done: true };
            await new Promise<void>((r) => (c.wake = r));
          }
        },
        return: async () => {
          this.removeConsumer(c);
          return { value: undefined, done: true };
        },
      }),
    };
  }

  private removeConsumer(c: Consumer): void {
    if (!this.consumers.delete(c)) return;
    c.closed = true;
    c.wake?.();
    if (this.consumers.size === 0) this.close();
    else void this.restartIfSettingsChanged();
  }

  private currentPage(): PageInfo | undefined {
    const p = this.active && this.pages.get(this.active.targetId);
    return p ? { targetId: p.targetId, url: p.url, title: p.title } : undefined;
  }

  private combined(): Record<string, number> {
    const all = [...this.consumers].map((c) => c.opts);
    if (all.length === 0) return {};
    return {
      maxWidth: Math.max(...all.map((o) => o.maxWidth)),
      maxHeight: Math.max(...all.map((o) => o.maxHeight)),
      quality: Math.max(...all.map((o) => o.quality)),
      everyNthFrame: Math.min(...all.map((o) => o.everyNthFrame)),
    };
  }

  private async restartIfSettingsChanged(): Promise<void> {
    const next = JSON.stringify(this.combined());
    if (next === this.settings || !this.active || !this.cdp) return;
    await this.startOn(this.active.sessionId).catch(() => {});
  }

  private async startOn(sessionId: string): Promise<void> {
    const cdp = this.cdp!;
    this.settings = JSON.stringify(this.combined());
    await cdp.send('Page.stopScreencast', undefined, { sessionId }).catch(() => {});
    await cdp.send('Page.startScreencast', { format: 'jpeg', ...this.combined() }, { sessionId });
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const generation = ++this.generation;
    this.cdp?.close();
    this.cdp = undefined;
    this.active = undefined;
    this.pages.clear();
    let cdp: CdpConnection;
    try {
      cdp = await CdpConnection.connect(this.handle.browserCdpUrl());
    } catch {
      return; // browser is restarting; onBrowserRestart reconnects
    }
    if (this.closed || generation !== this.generation) return cdp.close();
    this.cdp = cdp;
    cdp.on('Target.targetCreated', (p) => this.onTargetInfo(p.targetInfo as TargetInfo, true));
    cdp.on('Target.targetInfoChanged', (p) => this.onTargetInfo(p.targetInfo as TargetInfo, false));
    cdp.on('Target.targetDestroyed', (p) => this.onTargetGone(String(p.targetId)));
    cdp.on('Target.detachedFromTarget', (p) => {
      if (this.active && p.sessionId === this.active.sessionId) this.onTargetGone(this.active.targetId);
    });
    cdp.on('Page.screencastFrame', (p, sessionId) => this.onFrame(p as unknown as RawFrame, sessionId));
    await cdp.send('Target.setDiscoverTargets', { discover: true }).catch(() => {});
    await this.follow(false);
  }

  show(targetId: string): void {
    const page = this.pages.get(targetId);
    if (!page) return;
    page.seq = ++this.seq;
    void this.follow(false);
  }

  private onTargetInfo(t: TargetInfo, created: boolean): void {
    if (t.type !== 'page') return;
    const known = this.pages.get(t.targetId);
    this.pages.set(t.targetId, { targetId: t.targetId, url: t.url, title: t.title, seq: known?.seq ?? ++this.seq });
    if (created && !known) void this.follow(false);
    else if (this.active?.targetId === t.targetId) this.emitPage();
  }

  private onTargetGone(targetId: string): void {
    if (!this.pages.delete(targetId)) return;
    if (this.active?.targetId === targetId) {
      this.active = undefined;
      void this.follow(true);
    }
  }

  /** Shows the newest page; `bringToFront` when falling back to an older (background) tab. */
  private follow(bringToFront: boolean): Promise<void> {
    this.switching = this.switching.then(() => this.attachNewest(bringToFront)).catch(() => {});
    return this.switching;
  }

  private async attachNewest(bringToFront: boolean): Promise<void> {
    const cdp = this.cdp;
    if (!cdp || this.closed) return;
    const newest = [...this.pages.values()].sort((a, b) => b.seq - a.seq)[0];
    if (!newest || newest.targetId === this.active?.targetId) return;
    const previous = this.active;
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: newest.targetId, flatten: true });
    if (cdp !== this.cdp) return;
    this.active = { targetId: newest.targetId, sessionId };
    if (previous) void cdp.send('Target.detachFromTarget', { sessionId: previous.sessionId }).catch(() => {});
    if (bringToFront) await cdp.send('Page.bringToFront', undefined, { sessionId }).catch(() => {});
    await this.startOn(sessionId);
    this.emitPage();
  }

  private async refreshActiveInfo(): Promise<void> {
    const cdp = this.cdp;
    const targetId = this.active?.targetId;
    // Self-healing: a failed attach (target closing meanwhile, …) is retried here.
    if (cdp && !targetId && this.pages.size > 0) return this.follow(true);
    if (!cdp || !targetId) return;
    const r = await cdp.send('Target.getTargetInfo', { targetId }).catch(() => undefined);
    const known = this.pages.get(targetId);
    if (r && known && (known.title !== r.targetInfo.title || known.url !== r.targetInfo.url)) this.onTargetInfo(r.targetInfo, false);
  }

  private emitPage(): void {
    const page = this.currentPage();
    for (const c of this.consumers) for (const fn of c.pageListeners) fn(page);
  }

  private onFrame(p: RawFrame, sessionId: string | undefined): void {
    const cdp = this.cdp;
    if (!cdp || !sessionId) return;
    void cdp.send('Page.screencastFrameAck', { sessionId: p.sessionId }, { sessionId }).catch(() => {});
    if (!this.active || sessionId !== this.active.sessionId) return;
    const { timestamp, ...rest } = p.metadata;
    const frame: ScreencastFrame = {
      data: p.data,
      timestamp: typeof timestamp === 'number' ? Math.round(timestamp * 1000) : Date.now(),
      metadata: rest as FrameMetadata,
      targetId: this.active.targetId,
    };
    this.lastFrame = frame;
    for (const c of this.consumers) {
      c.queue.push(frame);
      if (c.queue.length > c.limit) c.queue.shift();
      c.wake?.();
    }
  }

  async sendToPage<M extends CdpMethod>(method: M, params: CdpParams<M>): Promise<CdpResult<M>> {
    const cdp = this.cdp;
    if (!cdp || !this.active) throw new Error('no page is attached');
    return cdp.send(method, params, { sessionId: this.active.sessionId });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.titlePoll);
    this.onClosed();
    this.unsubscribeRestart();
    this.cdp?.close();
    this.cdp = undefined;
    for (const c of this.consumers) {
      c.closed = true;
      c.wake?.();
    }
    this.consumers.clear();
  }
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title: string;
}

interface RawFrame {
  data: string;
  sessionId: number;
  metadata: FrameMetadata & { timestamp?: number };
}

function clampInt(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(Number.isFinite(n) ? n : min)));
}
