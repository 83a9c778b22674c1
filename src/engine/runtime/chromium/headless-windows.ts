/**
 * Keeps a headless session's page area equal to its viewport. New headless Chromium emulates
 * a full browser window: `--window-size` (and `Browser.setWindowBounds`) size the window
 * *including* its tab strip and toolbar (~87 px here), so a 1280x720 window shows a 1280x633
 * page. This module measures that frame on a page of each window (`outer - inner`), sizes
 * the window to viewport + frame, checks again (the frame can change, e.g. an infobar), and
 * does the same for every window opened later (new contexts, `newWindow` targets). It also
 * keeps the emulated screen equal to the viewport. The frame it learns is remembered per
 * browser build so later launches start with the right `--window-size`.
 */
import type { CdpConnection } from './cdp-connection.js';

export interface Size {
  width: number;
  height: number;
}

interface Measured {
  inner: Size;
  outer: Size;
  visible: boolean;
}

/** Frames learned per executable (+ kiosk): a hint for the next launch's `--window-size`. */
const learnedFrames = new Map<string, Size>();

export function frameHint(key: string): Size | undefined {
  return learnedFrames.get(key);
}

const ROUNDS = 4;

/** Sets every page window's outer size (headful: the window fills the X screen, UI included). */
export async function sizeAllWindows(control: CdpConnection, size: Size): Promise<void> {
  const { targetInfos } = await control.send('Target.getTargets');
  const windows = new Set<number>();
  for (const t of targetInfos.filter((t) => t.type === 'page')) {
    const w = await control.send('Browser.getWindowForTarget', { targetId: t.targetId }).catch(() => undefined);
    if (w) windows.add(w.windowId);
  }
  for (const windowId of windows) await control.send('Browser.setWindowBounds', { windowId, bounds: { width: size.width, height: size.height } });
}

export class HeadlessWindows {
  private frame: Size;
  /** The launch's `--window-size` already included a learned frame. */
  private readonly hinted: boolean;
  /** Windows already fitted to the current viewport (windowId → fitted for "WxH"). */
  private readonly fitted = new Map<number, string>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The wait for the first tab, ended on stop (the browser may go before it opens one). */
  private firstWait: { cancel: () => void } | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly control: CdpConnection,
    private readonly viewport: () => Size,
    private readonly cacheKey: string,
  ) {
    const hint = learnedFrames.get(cacheKey);
    this.hinted = !!hint;
    this.frame = hint ?? { width: 0, height: 0 };
    this.unsubscribe = control.on('Target.targetCreated', (p) => {
      const info = p.targetInfo as { targetId: string; type: string } | undefined;
      if (info?.type === 'page') this.enqueue(() => this.fitTarget(info.targetId));
    });
  }

  /**
   * Starts watching new targets and fits the windows that exist. Without a learned frame it
   * waits for the first page and measures it (hundreds of ms on a loaded machine). With one,
   * the launch's `--window-size` already made the page area equal the viewport, so readiness
   * does not wait for the first tab (Chromium opens it tens of ms after it answers CDP): the
   * check runs behind, and corrects the window if the frame turned out different.
   */
  async start(): Promise<void> {
    const first = (this.firstWait = this.firstPage());
    await Promise.all([this.control.send('Target.setDiscoverTargets', { discover: true }), this.updateScreen()]);
    if (this.hinted) {
      void this.checkLater(first);
      return;
    }
    if ((await this.pageTargets()).length === 0) await first.promise;
    first.cancel();
    await this.fitAll();
  }

  private async checkLater(first: { promise: Promise<void>; cancel: () => void }): Promise<void> {
    try {
      if ((await this.pageTargets()).length === 0) await first.promise;
      first.cancel();
      await this.fitAll();
    } catch {
      // The browser went away meanwhile: nothing to fit.
    }
  }

  /** After a viewport change: screen, then every window. */
  async resize(): Promise<void> {
    this.fitted.clear();
    await this.updateScreen();
    await this.fitAll();
  }

  stop(): void {
    this.stopped = true;
    this.firstWait?.cancel();
    this.unsubscribe();
  }

  /** Runs fits one at a time so two never fight over a window's bounds. */
  private enqueue(fn: () => Promise<void>): Promise<void> {
    const next = this.queue.then(() => (this.stopped || !this.control.isOpen ? undefined : fn())).catch(() => {});
    this.queue = next;
    return next;
  }

  private fitAll(): Promise<void> {
    return this.enqueue(async () => {
      const byWindow = new Map<number, string[]>();
      for (const t of await this.pageTargets()) {
        const w = await this.windowOf(t);
        if (w !== undefined) byWindow.set(w, [...(byWindow.get(w) ?? []), t]);
      }
      for (const [windowId, targets] of byWindow) await this.fitWindow(windowId, targets);
    });
  }

  private async fitTarget(targetId: string): Promise<void> {
    const windowId = await this.windowOf(targetId);
    // A new tab in a window that already fits shares its size; only new windows need work.
    if (windowId === undefined || this.fitted.get(windowId) === this.key()) return;
    await this.fitWindow(windowId, [targetId]);
  }

  private key(): string {
    const v = this.viewport();
    return `${v.width}x${v.height}`;
  }

  /** Sizes one window to viewport + frame until a visible page in it measures the viewport. */
  private async fitWindow(windowId: number, targets: string[]): Promise<void> {
    const v = this.viewport();
    for (let round = 0; round < ROUNDS; round++) {
      const want = { width: v.width + this.frame.width, height: v.height + this.frame.height };
      const { bounds } = await this.control.send('Browser.getWindowBounds', { windowId });
      // A maximized/fullscreen window is the client's choice; its size is not ours to set.
      if (bounds.windowState && bounds.windowState !== 'normal') return;
      if (bounds.width !== want.width || bounds.height !== want.height) {
        await this.control.send('Browser.setWindowBounds', { windowId, bounds: want });
      }
      const m = await this.measureVisible(targets, want);
      if (!m) return;
      if (m.inner.width === v.width && m.inner.height === v.height) {
        this.fitted.set(windowId, this.key());
        learnedFrames.set(this.cacheKey, { ...this.frame });
        return;
      }
      this.frame = { width: Math.max(0, m.outer.width - m.inner.width), height: Math.max(0, m.outer.height - m.inner.height) };
    }
  }

  /** Measures the first visible page of the window once its renderer has caught up with `outer`. */
  private async measureVisible(targets: string[], outer: Size): Promise<Measured | undefined> {
    // A page that is navigating loses its context mid-evaluate; try again a few times.
    for (let attempt = 0; attempt < 3; attempt++) {
      let fallback: Measured | undefined;
      for (const targetId of targets) {
        const m = await this.measure(targetId, outer).catch(() => undefined);
        if (m?.visible) return m;
        fallback ??= m;
      }
      if (fallback) return fallback;
      await new Promise((r) => setTimeout(r, 50));
    }
    return undefined;
  }

  private async measure(targetId: string, outer: Size): Promise<Measured | undefined> {
    const { sessionId } = await this.control.send('Target.attachToTarget', { targetId, flatten: true });
    try {
      // The resize reaches the renderer asynchronously: wait (briefly, bounded) until it has.
      const expression = `new Promise((resolve) => {
        const snap = () => resolve([innerWidth, innerHeight, outerWidth, outerHeight, document.visibilityState === 'visible']);
        let n = 0;
        const check = () => (outerWidth === ${outer.width} && outerHeight === ${outer.height}) || ++n > 150 ? snap() : setTimeout(check, 20);
        check();
      })`;
      const r = await this.control.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, { sessionId, timeoutMs: 8000 });
      const v = r.result.value;
      if (!Array.isArray(v)) return undefined;
      return { inner: { width: v[0], height: v[1] }, outer: { width: v[2], height: v[3] }, visible: v[4] };
    } finally {
      await this.control.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
  }

  /** The emulated screen follows the viewport (`--screen-info` at launch, `Emulation.updateScreen` after). */
  private async updateScreen(): Promise<void> {
    const v = this.viewport();
    const infos = await this.control.send('Emulation.getScreenInfos').catch(() => undefined);
    const primary = infos?.screenInfos.find((s) => s.isPrimary) ?? infos?.screenInfos[0];
    if (!primary || (primary.width === v.width && primary.height === v.height)) return;
    await this.control.send('Emulation.updateScreen', { screenId: primary.id, width: v.width, height: v.height }).catch(() => {});
  }

  private async pageTargets(): Promise<string[]> {
    const { targetInfos } = await this.control.send('Target.getTargets');
    return targetInfos.filter((t) => t.type === 'page').map((t) => t.targetId);
  }

  private async windowOf(targetId: string): Promise<number | undefined> {
    const w = await this.control.send('Browser.getWindowForTarget', { targetId }).catch(() => undefined);
    return w?.windowId;
  }

  /** Resolves when a page target is created (or after a bounded wait); subscribe before looking. */
  private firstPage(): { promise: Promise<void>; cancel: () => void } {
    let cancel = (): void => {};
    const promise = new Promise<void>((resolve) => {
      const off = this.control.on('Target.targetCreated', (p) => {
        if ((p.targetInfo as { type?: string } | undefined)?.type === 'page') cancel();
      });
      // Unref'd: with a learned frame nothing awaits this at start, and a browser that ends
      // before opening a tab must not keep the engine's process alive for the wait.
      const timer = setTimeout(() => cancel(), 10_000);
      timer.unref();
      cancel = () => {
        clearTimeout(timer);
        off();
        resolve();
      };
    });
    return { promise, cancel };
  }
}
