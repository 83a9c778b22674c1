/**
 * One pool's live state on the node that runs it: idle browsers (warm sessions waiting in
 * FIFO order), the ones handed out, launches in flight, and long-polling acquirers. Filling is
 * rate-limited by `fill_rate_per_minute` (a sliding one-minute window of launches); replacing
 * a browser released with `reuse` skips the limit, since its slot was already filled once.
 * Launching and ending browsers is injected, so this file holds only the pool's rules.
 */
export interface PoolLauncher {
  /** Starts one warm browser for the pool; resolves with its session id once it is idle. */
  launch(): Promise<string>;
  /** Ends a pooled session (idle or acquired). */
  end(sessionId: string, reason: string): Promise<void>;
  onError(err: unknown): void;
}

interface Waiter {
  resolve: (sessionId: string | undefined) => void;
  timer: NodeJS.Timeout;
}

const WINDOW_MS = 60_000;
const RETRY_AFTER_FAILURE_MS = 5_000;
const MAX_RETRY_MS = 60_000;

export class PoolRuntime {
  readonly idle: string[] = [];
  readonly acquired = new Set<string>();
  private launching = 0;
  private credits = 0;
  private launches: number[] = [];
  private waiters: Waiter[] = [];
  /** Launches not yet settled: `stop` waits for them (a browser one starts after the stop is ended). */
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private failures = 0;

  constructor(
    private size: number,
    private perMinute: number,
    private readonly launcher: PoolLauncher,
    private readonly now: () => number = Date.now,
  ) {}

  get total(): number {
    return this.idle.length + this.acquired.size + this.launching;
  }

  resize(size: number, perMinute: number): void {
    this.size = size;
    this.perMinute = perMinute;
    for (const id of this.idle.splice(0, Math.max(0, Math.min(this.idle.length, this.total - this.size))))
      void this.launcher.end(id, 'pool_resized').catch(() => {});
    this.fill();
  }

  /** Launches browsers while the pool is below its size and the rate allows. */
  fill(): void {
    if (this.stopped) return;
    // While backing off after failures, only the scheduled retry launches.
    if (this.failures > 0 && this.timer) return;
    const now = this.now();
    this.launches = this.launches.filter((t) => now - t < WINDOW_MS);
    while (this.total < this.size) {
      const free = this.credits > 0;
      if (!free && this.launches.length >= this.perMinute) break;
      if (free) this.credits--;
      else this.launches.push(now);
      this.launchOne();
    }
    if (this.total < this.size && !this.timer) {
      const wait = this.launches.length ? WINDOW_MS - (now - this.launches[0]) + 5 : RETRY_AFTER_FAILURE_MS;
      this.schedule(wait);
    }
  }

  private schedule(ms: number): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fill();
    }, ms);
    this.timer.unref();
  }

  private launchOne(): void {
    this.launching++;
    const settled = this.launcher.launch().then(
      async (id) => {
        this.launching--;
        this.failures = 0;
        if (this.stopped) return void (await this.launcher.end(id, 'pool_deleted').catch(() => {}));
        this.addIdle(id);
      },
      (err) => {
        this.launching--;
        this.failures++;
        this.launcher.onError(err);
        // Back off while launches keep failing (5 s, 10 s, … up to a minute).
        this.schedule(Math.min(MAX_RETRY_MS, RETRY_AFTER_FAILURE_MS * 2 ** Math.min(4, this.failures - 1)));
      },
    );
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
  }

  private addIdle(id: string): void {
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      this.acquired.add(id);
      w.resolve(id);
    } else this.idle.push(id);
  }

  /** An idle browser now, or the first one to become idle within `timeoutMs`; undefined on timeout. */
  take(timeoutMs: number): Promise<string | undefined> {
    const id = this.idle.shift();
    if (id) {
      this.acquired.add(id);
      return Promise.resolve(id);
    }
    if (this.stopped || timeoutMs <= 0) return Promise.resolve(undefined);
    this.fill();
    return new Promise((resolve) => {
      const w: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((x) => x !== w);
          resolve(undefined);
        }, timeoutMs),
      };
      this.waiters.push(w);
    });
  }

  /** Puts a taken browser back (its hand-over failed). */
  giveBack(id: string): void {
    if (!this.acquired.delete(id)) return;
    this.addIdle(id);
  }

  /** A pooled session ended (released, deleted, timed out, crashed); `replace` skips the fill rate once. */
  ended(id: string, replace: boolean): void {
    const i = this.idle.indexOf(id);
    if (i >= 0) this.idle.splice(i, 1);
    const wasOurs = i >= 0 || this.acquired.delete(id);
    if (!wasOurs) return;
    if (replace) this.credits++;
    this.fill();
  }

  /** Takes every idle browser out (to end them). */
  drainIdle(): string[] {
    return this.idle.splice(0);
  }

  /**
   * No more launches; waiting acquirers get undefined. Resolves once the launches in flight have
   * settled and any browser they started has ended: a deleted pool leaves no session behind it.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
    await Promise.all(this.inFlight);
  }
}
