/**
 * When a standby launch may go: once no create is being answered and none was for QUIET_MS
 * (the clients just answered connect and navigate next), after WAIT_MS at most (so a busy engine
 * still refills). A standby launch (the refill a claim starts, a launch a cold create asked for)
 * takes a core or two for a second or more: beside a create, or the first connect and
 * navigation of a session just answered, it would make the clients that are waiting wait.
 */
const QUIET_MS = 1000;
const WAIT_MS = 5000;

export class CreateQuiet {
  private inFlight = 0;
  private quietTimer?: NodeJS.Timeout;
  private readonly waiting = new Set<() => void>();

  /** Counts `create` as in flight while it runs. */
  async around<T>(create: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await create();
    } finally {
      this.answered();
    }
  }

  /** Resolves once creates are quiet (or after WAIT_MS, or at `release`). */
  quiet(): Promise<void> {
    if (this.inFlight === 0 && !this.quietTimer) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(cap);
        this.waiting.delete(done);
        resolve();
      };
      const cap = setTimeout(done, WAIT_MS);
      this.waiting.add(done);
    });
  }

  /** Engine stop: every launch still waiting goes on now (and gives up, the engine stopping). */
  release(): void {
    clearTimeout(this.quietTimer);
    for (const done of [...this.waiting]) done();
  }

  /** A create has been answered (or failed): waiting standby launches go after a quiet QUIET_MS. */
  private answered(): void {
    if (--this.inFlight > 0) return;
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.inFlight === 0) for (const done of [...this.waiting]) done();
    }, QUIET_MS);
    this.quietTimer.unref();
  }
}
