/**
 * A session's clocks of activity: the inactivity timeout (the session ends after
 * `timeoutSeconds` without activity or holds) and the idle freeze of its jail (idle-freeze.ts),
 * which any activity thaws first. Clients connected hold the session (`holdActive`); an API call
 * in flight only keeps the jail thawed (`holdThawed`), the timeout counts on.
 */
import type { Timers } from '../../../shared/clock.js';
import { processTimers } from '../process-timers.js';
import type { IdleFreeze } from './idle-freeze.js';

export class SessionActivity {
  private holds = 0;
  /** Cancels the armed timeout. */
  private timer?: () => void;
  private stopped = false;

  constructor(
    private readonly idle: IdleFreeze | undefined,
    private readonly timeoutSeconds: () => number,
    /** The timeout ran out with nobody holding the session. */
    private readonly onTimeout: () => void,
    private readonly timers: Timers = processTimers,
  ) {}

  /** Whether the jail is frozen right now (idle; thawed by the next client or API call). */
  get frozen(): boolean {
    return this.idle?.frozen ?? false;
  }

  /** Number of clients currently holding the session active. */
  get activeHolds(): number {
    return this.holds;
  }

  /** The session runs: its timeout starts counting and its idle clock starts. */
  started(): void {
    if (this.stopped) return;
    this.arm();
    this.idle?.activity();
  }

  /** Whoever is about to talk to the browser: a frozen jail wakes first. */
  wake(): void {
    this.idle?.activity();
  }

  touch(): void {
    if (this.stopped) return;
    this.idle?.activity();
    if (this.holds === 0) this.arm();
  }

  holdActive(): () => void {
    this.holds++;
    this.timer?.();
    this.timer = undefined;
    const unfreeze = this.idle?.hold();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      unfreeze?.();
      this.touch();
    };
  }

  holdThawed(): () => void {
    return this.idle?.hold() ?? (() => {});
  }

  /** The session ends: no timeout fires, and the jail stays thawed (a frozen browser could neither close cleanly nor answer the end's last CDP calls). */
  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.idle?.stop();
  }

  private arm(): void {
    this.timer?.();
    this.timer = this.timers.set(() => {
      if (this.holds === 0) this.onTimeout();
    }, this.timeoutSeconds() * 1000);
  }
}
