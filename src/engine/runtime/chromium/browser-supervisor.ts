/**
 * Keeps one session's browser alive: relaunches it when it dies unexpectedly (same
 * user-data-dir, so CDP clients reconnect to the same proxy URL), and gives up after
 * `maxCrashes` crashes within `windowMs`. `stop()` closes it for good and leaves no process.
 */
import { killGroup } from './process-group.js';
import { stopChromium, type LaunchedBrowser } from './launch-chromium.js';
import { flushLocalStorage } from './flush-local-storage.js';

/** How long a browser being saved (restart with `whileStopped`) may take to close cleanly. */
const SAVE_CLOSE_GRACE_MS = 15_000;

export interface SupervisorOptions {
  launch(): Promise<LaunchedBrowser>;
  /** Called after every relaunch that followed a crash. */
  onRestart(b: LaunchedBrowser): void;
  /** Called once when the browser cannot be kept alive; the session should end. */
  onGiveUp(reason: string): void;
  now(): number;
  maxCrashes?: number;
  windowMs?: number;
}

export class BrowserSupervisor {
  private browser?: LaunchedBrowser;
  private stopping = false;
  private crashes: number[] = [];
  private readyPromise: Promise<LaunchedBrowser>;
  /** The launch in flight, so `stop()` never misses a browser that is still starting. */
  private launching?: Promise<LaunchedBrowser>;
  private resolveReady!: (b: LaunchedBrowser) => void;
  restarts = 0;

  constructor(private readonly opts: SupervisorOptions) {
    this.readyPromise = this.pendingReady();
  }

  private pendingReady(): Promise<LaunchedBrowser> {
    const p = new Promise<LaunchedBrowser>((resolve) => (this.resolveReady = resolve));
    p.catch(() => {});
    return p;
  }

  get current(): LaunchedBrowser | undefined {
    return this.browser;
  }

  /** Resolves with the running browser (waits while a restart is under way). */
  ready(): Promise<LaunchedBrowser> {
    return this.readyPromise;
  }

  private launchOnce(): Promise<LaunchedBrowser> {
    const p = this.opts.launch();
    this.launching = p;
    void p
      .catch(() => {})
      .finally(() => {
        if (this.launching === p) this.launching = undefined;
      });
    return p;
  }

  async start(): Promise<LaunchedBrowser> {
    const b = await this.launchOnce();
    if (this.stopping) {
      await stopChromium(b, 500);
      throw new Error('stopped while the browser was starting');
    }
    this.adopt(b);
    return b;
  }

  private adopt(b: LaunchedBrowser): void {
    this.browser = b;
    this.resolveReady(b);
    void b.exited.then(() => {
      if (!this.stopping && this.browser === b) void this.onCrash(b);
    });
  }

  private async onCrash(dead: LaunchedBrowser): Promise<void> {
    // The main process is gone; renderers and helpers of its group must not outlive it.
    killGroup(dead.pgid);
    dead.control.close();
    this.readyPromise = this.pendingReady();
    const now = this.opts.now();
    this.crashes = [...this.crashes.filter((t) => now - t < (this.opts.windowMs ?? 60_000)), now];
    if (this.crashes.length >= (this.opts.maxCrashes ?? 3)) {
      this.opts.onGiveUp(`browser crashed ${this.crashes.length} times within ${Math.round((this.opts.windowMs ?? 60_000) / 1000)} s`);
      return;
    }
    try {
      const b = await this.launchOnce();
      if (this.stopping) {
        await stopChromium(b, 500);
        return;
      }
      this.restarts++;
      this.adopt(b);
      this.opts.onRestart(b);
    } catch (err) {
      if (!this.stopping) this.opts.onGiveUp(`browser could not be restarted: ${(err as Error).message}`);
    }
  }

  /**
   * Replaces the running browser on purpose (its launch flags changed, e.g. new extensions):
   * closes it cleanly (same user-data-dir, so state carries over), launches again and tells the
   * restart listeners, exactly as after a crash. A failed launch is thrown; the caller decides
   * whether to try again or give up (`giveUp`).
   *
   * `whileStopped` runs between the two, with the user-data-dir closed and flushed (saving a
   * running browser into a profile); it is skipped when the old browser did not close cleanly.
   * Its failure (or that skip) is thrown after the new browser is up.
   */
  async restart(whileStopped?: () => Promise<void>): Promise<LaunchedBrowser> {
    if (this.stopping) throw new Error('the browser is stopping');
    await this.launching?.catch(() => {});
    const old = this.browser;
    // Clearing `browser` first makes the old one's exit not count as a crash.
    this.browser = undefined;
    this.readyPromise = this.pendingReady();
    // A save needs the files flushed: give a loaded machine's browser longer to close cleanly.
    const clean = old ? await closeBrowser(old, !!whileStopped) : false;
    let failed: Error | undefined;
    if (whileStopped) {
      if (!clean) failed = new Error('the browser did not close cleanly, so its files may be torn');
      else await whileStopped().catch((err: Error) => (failed = err));
    }
    const b = await this.launchOnce();
    if (this.stopping) {
      await stopChromium(b, 500);
      throw new Error('stopped while the browser was restarting');
    }
    this.adopt(b);
    this.opts.onRestart(b);
    if (failed) throw failed;
    return b;
  }

  /** Ends supervision after a failed `restart` (the session ends). */
  giveUp(reason: string): void {
    if (!this.stopping) this.opts.onGiveUp(reason);
  }

  /** Stops for good; true when the browser closed cleanly through CDP (state flushed to disk). */
  async stop(opts: { saving?: boolean } = {}): Promise<boolean> {
    this.stopping = true;
    await this.launching?.catch(() => {});
    const b = this.browser;
    if (!b) return false;
    return closeBrowser(b, !!opts.saving);
  }
}

/**
 * Closes `b`; true when it closed cleanly. A browser whose files are saved (a profile at the end,
 * or a save while running) gets its localStorage onto disk first and, on a loaded machine, longer
 * to close cleanly (else the save is skipped and the state lost).
 */
async function closeBrowser(b: LaunchedBrowser, saving: boolean): Promise<boolean> {
  if (!saving) return stopChromium(b);
  await flushLocalStorage(b.control);
  return stopChromium(b, SAVE_CLOSE_GRACE_MS);
}
