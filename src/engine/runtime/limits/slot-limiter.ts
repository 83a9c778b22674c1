/**
 * Counted slots with two bounds: at most `perKey` held under one key (a session) and at most
 * `total` held in all. `acquire` answers at once — a release function, or which bound refused —
 * so a caller over a bound is told so instead of joining a queue that grows without limit.
 * Used for a session's concurrent exec/execute calls and for its open WebSocket connections.
 */
export type SlotScope = 'session' | 'engine';

export interface SlotRefusal {
  /** Which bound is full: the key's own (`session`) or the one of all keys (`engine`). */
  scope: SlotScope;
  max: number;
}

export class SlotLimiter {
  private readonly held = new Map<string, number>();
  private used = 0;

  constructor(
    readonly perKey: number,
    readonly total: number,
  ) {}

  /** A slot under `key` (undefined: counted only against `total`); its release is idempotent. */
  acquire(key: string | undefined): (() => void) | SlotRefusal {
    if (this.used >= this.total) return { scope: 'engine', max: this.total };
    const mine = key === undefined ? 0 : (this.held.get(key) ?? 0);
    if (key !== undefined && mine >= this.perKey) return { scope: 'session', max: this.perKey };
    this.used++;
    if (key !== undefined) this.held.set(key, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
      if (key === undefined) return;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
    };
  }

  /** Slots held under `key`, or in all when no key is given. */
  inUse(key?: string): number {
    return key === undefined ? this.used : (this.held.get(key) ?? 0);
  }
}
