/**
 * When a session's jail is frozen: after `afterMs` with no client connected (CDP, BiDi, live
 * view, WebDriver, a process's CDP socket — each holds the session) and no API call to it.
 * Any activity thaws it first, so a client never notices. The inactivity timeout is not this:
 * it keeps counting while the jail is frozen.
 */
import type { JailFreezer } from './jail-freezer.js';

export class IdleFreeze {
  private timer?: NodeJS.Timeout;
  private clients = 0;
  private stopped = false;

  constructor(
    private readonly freezer: JailFreezer,
    private readonly afterMs: number,
  ) {}

  get frozen(): boolean {
    return this.freezer.frozen;
  }

  /** An API call or a message: thaw now, freeze again after a quiet `afterMs`. */
  activity(): void {
    this.freezer.thaw();
    this.arm();
  }

  /** A client connected: thawed until it leaves. */
  hold(): () => void {
    this.clients++;
    this.freezer.thaw();
    this.clear();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.clients--;
      this.activity();
    };
  }

  /** The session ends: thawed for good (its browser must close cleanly). */
  stop(): void {
    this.stopped = true;
    this.clear();
    this.freezer.thaw();
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    this.clear();
    if (this.stopped || this.clients > 0 || this.afterMs <= 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped && this.clients === 0) this.freezer.freeze();
    }, this.afterMs);
    this.timer.unref();
  }
}
