/**
 * Timers a test advances by hand (EngineOptions.sessionTimers): a session's 300 s inactivity
 * timeout runs out when the test says so, not 300 s later. Like the process's timers, those due
 * at the same time fire in the order they were set.
 */
import type { Timers } from '../../src/shared/clock.js';

interface Pending {
  due: number;
  seq: number;
  fn: () => void;
}

export class ManualTimers implements Timers {
  private now = 0;
  private seq = 0;
  private readonly pending = new Set<Pending>();

  set(fn: () => void, ms: number): () => void {
    const p: Pending = { due: this.now + ms, seq: this.seq++, fn };
    this.pending.add(p);
    return () => this.pending.delete(p);
  }

  /** How many timers are set and not yet fired or cancelled. */
  get armed(): number {
    return this.pending.size;
  }

  /** Moves time on to the first timer due and fires it (of those due together, the first set); false when none is set. */
  fireNext(): boolean {
    const next = [...this.pending].sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
    if (!next) return false;
    this.pending.delete(next);
    this.now = Math.max(this.now, next.due);
    next.fn();
    return true;
  }

  /** Moves time on by `ms` without firing anything (a test asserts nothing fell due first). */
  pass(ms: number): void {
    const due = [...this.pending].filter((p) => p.due <= this.now + ms);
    if (due.length) throw new Error(`${due.length} timer(s) fall due within ${ms} ms: fire them with fireNext()`);
    this.now += ms;
  }
}
