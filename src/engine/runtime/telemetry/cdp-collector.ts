/**
 * The CDP side of a session's telemetry: its own browser-level connection that auto-attaches
 * to every page, enables only the CDP domains the enabled categories need (Runtime for
 * console, Network, Page + PerformanceTimeline for page, the isolated-world page script for
 * interaction and captcha) and re-applies them live when the config changes. It reports new
 * tabs, takes periodic screenshots (screenshot category), and reconnects after a browser
 * restart (monitor_disconnected / monitor_reconnected). No connection is held while every
 * CDP-backed category is off.
 */
import type { SessionHandle } from '../session/session-handle.js';
import { CdpConnection } from '../chromium/cdp-connection.js';
import type { CdpMethod, CdpParams } from '../chromium/cdp-types.js';
import type { CategorySwitches, SessionTelemetry } from './session-telemetry.js';
import { PAGE_EVENTS, PageTracker, type PageEvent } from './page-tracker.js';
import { TELEMETRY_BINDING, TELEMETRY_WORLD, pageScriptSource } from './page-script.js';
import { LIMITS } from './telemetry-event.js';
import { ResponseBodyFetch } from './response-body-fetch.js';

const CDP_CATEGORIES = ['console', 'network', 'page', 'interaction', 'captcha', 'screenshot'] as const;
/** Categories whose events come from a page's load itself; the others catch up on a loaded page (the page script runs immediately). */
const PAGE_LOAD_CATEGORIES = ['console', 'network', 'page'] as const;

/**
 * Whether a session with these switches must have its collector watching a tab before that tab
 * loads anything — else the load's requests, console lines and load events are lost.
 */
export function watchesPageLoads(s: Pick<CategorySwitches, (typeof PAGE_LOAD_CATEGORIES)[number]>): boolean {
  return PAGE_LOAD_CATEGORIES.some((c) => s[c].enabled);
}
/**
 * How long a collector that found no tab waits for the browser's first one. A browser that has
 * just started may not have opened its initial tab yet (readiness does not wait for it); a
 * collector that resolved without it would let the caller's start_url navigation race the
 * attach, and the load's first request and navigation would be lost.
 */
const FIRST_TAB_WAIT_MS = 2_000;

interface Attached {
  tracker: PageTracker;
  /** Domains/features currently on for this page. */
  on: Set<string>;
  scriptId?: string;
  applying: Promise<void>;
}

export class CdpCollector {
  private conn?: CdpConnection;
  private connecting?: Promise<void>;
  private readonly pages = new Map<string, Attached>();
  private shotTimer?: NodeJS.Timeout;
  private closed = false;
  private disconnectedAt?: number;
  private readonly offs: Array<() => void> = [];
  private readonly bodies: ResponseBodyFetch;

  constructor(
    private readonly handle: SessionHandle,
    private readonly tel: SessionTelemetry,
    private readonly opts: { screenshotIntervalMs: number; now: () => number },
  ) {
    this.bodies = new ResponseBodyFetch(tel.responses, () => tel.config.network.enabled && !!tel.config.network.bodies);
  }

  /**
   * Starts collecting. Resolves once the collector is connected and has enabled its domains on
   * every tab open at that time (or gave up: monitor_init_failed), so a navigation started
   * afterwards is seen from its first request.
   */
  start(): Promise<void> {
    this.offs.push(this.tel.onConfig((s) => this.apply(s)));
    this.offs.push(
      this.handle.onBrowserRestart(() => {
        this.disconnectedAt = this.opts.now();
        this.tel.emit('monitor', 'monitor_disconnected', { source: { kind: 'cdp' }, data: { reason: 'chrome_restarted' } });
        this.drop();
        void this.apply(this.tel.config);
      }),
    );
    return this.apply(this.tel.config);
  }

  private wanted(s: CategorySwitches): boolean {
    return CDP_CATEGORIES.some((c) => s[c].enabled);
  }

  /** Brings the connection and every page in line with the switches. */
  private async apply(s: CategorySwitches): Promise<void> {
    if (this.closed) return;
    this.armScreenshots(s.screenshot.enabled);
    if (!this.wanted(s)) {
      this.drop();
      return;
    }
    // A connect still in progress (e.g. started with the session, waiting for its first tab)
    // has not attached every tab yet: wait for it rather than configure an incomplete list.
    if (!this.conn && !this.connecting) this.connecting = this.connect().finally(() => (this.connecting = undefined));
    if (this.connecting) await this.connecting;
    const conn = this.conn;
    if (!conn) return;
    // A round trip on this connection: a tab opened before this call (auto-attach reports it at
    // creation) has had its attach event delivered, so it is in `pages`, by the time this answers.
    await conn.send('Target.getTargets').catch(() => {});
    await Promise.all([...this.pages.entries()].map(([sid, a]) => this.configure(sid, a)));
  }

  private async connect(): Promise<void> {
    let conn: CdpConnection;
    try {
      await this.handle.ready();
      conn = await CdpConnection.connect(this.handle.browserCdpUrl());
    } catch (err) {
      if (!this.closed) this.tel.emit('monitor', 'monitor_init_failed', { source: { kind: 'cdp' }, data: { step: 'connect', error: (err as Error).message } });
      return;
    }
    if (this.closed || !this.wanted(this.tel.config)) return conn.close();
    this.conn = conn;
    void conn.closed.then(() => this.conn === conn && this.drop());
    if (this.disconnectedAt !== undefined) {
      this.tel.emit('monitor', 'monitor_reconnected', { source: { kind: 'cdp' }, data: { reconnect_duration_ms: this.opts.now() - this.disconnectedAt } });
      this.disconnectedAt = undefined;
    }
    let discovering = true;
    let firstTab: () => void = () => {};
    const tabSeen = new Promise<void>((resolve) => (firstTab = resolve));
    conn.on('Target.targetCreated', (p) => {
      const t = p.targetInfo as { targetId: string; type: string; url: string; title: string; openerId?: string };
      if (discovering || t.type !== 'page') return;
      this.tel.emit('page', 'page_tab_opened', {
        source: { kind: 'cdp', event: 'Target.targetCreated' },
        data: { target_id: t.targetId, target_type: 'page', url: t.url, title: t.title, opener_id: t.openerId },
      });
    });
    conn.on('Target.attachedToTarget', (p, parent) => {
      const info = p.targetInfo as { targetId: string; type: string; url: string };
      if (parent || info.type !== 'page') return;
      const tracker = new PageTracker(info.targetId, String(p.sessionId), this.tel, this.opts.now);
      tracker.url = info.url;
      const a: Attached = { tracker, on: new Set(), applying: Promise.resolve() };
      this.pages.set(String(p.sessionId), a);
      void this.configure(String(p.sessionId), a);
      firstTab();
    });
    conn.on('Target.detachedFromTarget', (p) => this.forget(String(p.sessionId), 'abandoned'));
    // A tab's renderer died ("Aw, Snap!") while the browser lives on (Kernel §6.3 page_crashed).
    conn.on('Target.targetCrashed', (p) => {
      for (const [sid, a] of this.pages)
        if (a.tracker.targetId === p.targetId)
          this.tel.emit('page', 'page_crashed', {
            source: { kind: 'cdp', event: 'Target.targetCrashed', metadata: { target_id: a.tracker.targetId, session_id: sid } },
            data: { target_id: a.tracker.targetId, target_type: 'page', url: a.tracker.url },
          });
    });
    for (const ev of PAGE_EVENTS) {
      conn.on(ev, (p, sid) => {
        const a = sid ? this.pages.get(sid) : undefined;
        // `ev` and `p` belong together (one listener per event name); TS cannot correlate a
        // union-typed name with its parameters, so the pair is asserted once here.
        if (a) a.tracker.handle({ method: ev, params: p } as PageEvent);
      });
    }
    // What a HAR needs beyond the events: each response's end and size, and its body when asked.
    conn.on('Network.dataReceived', (p, sid) => void (sid && this.pages.has(sid) && this.bodies.dataReceived(p)));
    conn.on('Network.loadingFailed', (p, sid) => void (sid && this.pages.has(sid) && this.bodies.loadingFailed(p)));
    conn.on('Network.loadingFinished', (p, sid) => void (sid && this.pages.has(sid) && this.bodies.loadingFinished(conn, sid, p)));
    try {
      await conn.send('Target.setDiscoverTargets', { discover: true });
      discovering = false;
      // Chromium reports the already-open tabs (attachedToTarget) before it answers this.
      await conn.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    } catch {
      /* the connection dropped; a restart reconnects */
    }
    if (this.pages.size === 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([tabSeen, conn.closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_TAB_WAIT_MS)))]);
      clearTimeout(timer);
    }
    await Promise.all([...this.pages.values()].map((a) => a.applying));
  }

  /** Turns CDP domains of one page on or off to match the switches (serialized per page). */
  private configure(sid: string, a: Attached): Promise<void> {
    a.applying = a.applying.then(() => this.configureNow(sid, a)).catch(() => {});
    return a.applying;
  }

  private async configureNow(sid: string, a: Attached): Promise<void> {
    const conn = this.conn;
    if (!conn || !this.pages.has(sid)) return;
    const s = this.tel.config;
    const send = <M extends CdpMethod>(m: M, p?: CdpParams<M>) => conn.send(m, p, { sessionId: sid });
    const want = {
      // The page script's binding reports only to a client with Runtime enabled: interaction and
      // captcha need it too (console events it then also delivers are dropped at the door).
      Runtime: s.console.enabled || s.interaction.enabled || s.captcha.enabled,
      Network: s.network.enabled,
      Page: s.page.enabled || s.interaction.enabled || s.captcha.enabled,
      PerformanceTimeline: s.page.enabled,
      script: s.interaction.enabled || s.captcha.enabled,
    };
    if (want.Page && !a.on.has('Page')) await send('Page.enable').then(() => a.on.add('Page'));
    if (want.script && !a.on.has('script')) {
      await send('Runtime.addBinding', { name: TELEMETRY_BINDING, executionContextName: TELEMETRY_WORLD });
      const r = await send('Page.addScriptToEvaluateOnNewDocument', { source: pageScriptSource(), worldName: TELEMETRY_WORLD, runImmediately: true });
      a.scriptId = r.identifier;
      a.on.add('script');
    } else if (!want.script && a.on.has('script')) {
      if (a.scriptId) await send('Page.removeScriptToEvaluateOnNewDocument', { identifier: a.scriptId }).catch(() => {});
      await send('Runtime.removeBinding', { name: TELEMETRY_BINDING }).catch(() => {});
      a.on.delete('script');
    }
    if (want.Runtime && !a.on.has('Runtime')) await send('Runtime.enable').then(() => a.on.add('Runtime'));
    else if (!want.Runtime && a.on.has('Runtime')) await send('Runtime.disable').then(() => a.on.delete('Runtime'));
    if (want.Network && !a.on.has('Network')) await send('Network.enable', { maxPostDataSize: LIMITS.body }).then(() => a.on.add('Network'));
    else if (!want.Network && a.on.has('Network')) await send('Network.disable').then(() => a.on.delete('Network'));
    if (want.PerformanceTimeline && !a.on.has('PerformanceTimeline')) {
      await send('PerformanceTimeline.enable', { eventTypes: ['layout-shift', 'largest-contentful-paint'] }).then(() => a.on.add('PerformanceTimeline'));
    } else if (!want.PerformanceTimeline && a.on.has('PerformanceTimeline')) {
      await send('PerformanceTimeline.enable', { eventTypes: [] }).then(() => a.on.delete('PerformanceTimeline'));
    }
    if (!want.Page && a.on.has('Page')) await send('Page.disable').then(() => a.on.delete('Page'));
  }

  private forget(sid: string, captcha: 'abandoned'): void {
    const a = this.pages.get(sid);
    if (!a) return;
    a.tracker.finishCaptcha(captcha);
    a.tracker.dispose();
    this.pages.delete(sid);
  }

  private armScreenshots(on: boolean): void {
    if (!on || this.closed) {
      clearInterval(this.shotTimer);
      this.shotTimer = undefined;
      return;
    }
    if (this.shotTimer) return;
    this.shotTimer = setInterval(() => void this.screenshot(), this.opts.screenshotIntervalMs);
    this.shotTimer.unref();
  }

  /** One PNG of the newest page (the one the live view shows). */
  async screenshot(): Promise<void> {
    const conn = this.conn;
    const newest = [...this.pages.keys()].at(-1);
    if (!conn || !newest) return;
    try {
      const r = await conn.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true }, { sessionId: newest, timeoutMs: 10_000 });
      const tooBig = r.data.length > LIMITS.png;
      this.tel.emit('screenshot', 'monitor_screenshot', {
        source: { kind: 'cdp', event: 'Page.captureScreenshot' },
        data: tooBig ? {} : { png: r.data },
        stringLimits: { png: LIMITS.png },
      });
    } catch {
      /* page busy or gone: the next tick tries again */
    }
  }

  /** Closes the connection; pages' pending captchas end as abandoned. */
  private drop(): void {
    this.bodies.drop();
    for (const sid of [...this.pages.keys()]) this.forget(sid, 'abandoned');
    const c = this.conn;
    this.conn = undefined;
    c?.close();
  }

  close(): void {
    if (this.closed) return;
    this.drop();
    this.closed = true;
    clearInterval(this.shotTimer);
    for (const off of this.offs.splice(0)) off();
  }
}
