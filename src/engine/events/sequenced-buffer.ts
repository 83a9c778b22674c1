/**
 * A sequenced event buffer with fan-out: every pushed item gets the next sequence number
 * (1, 2, 3 …), the newest `capacity` items (and at most `maxBytes` of them) are retained,
 * and subscribers hear each new item synchronously. `subscribe({after})` replays retained
 * items with a larger sequence number and then follows live in the same tick, so a reader
 * that resumes from its last seen sequence number never misses one that is still retained.
 * Generic: telemetry uses it per session; any other per-resource event stream may too.
 */

export interface Sequenced<T> {
  seq: number;
  item: T;
  /** Approximate size used for the byte budget. */
  bytes: number;
}

export interface BufferSubscription {
  unsubscribe(): void;
}

export interface SequencedBufferOptions {
  /** Items retained (oldest evicted first). */
  capacity: number;
  /** Total approximate bytes retained; the oldest are evicted beyond it (default unlimited). */
  maxBytes?: number;
  /** Size of an item for the byte budget (default: its JSON length). */
  sizeOf?: (item: unknown) => number;
}

export class SequencedBuffer<T> {
  private readonly items: Sequenced<T>[] = [];
  private head = 0;
  private bytes = 0;
  private nextSeq = 1;
  private readonly listeners = new Set<{ fn: (e: Sequenced<T>) => void; end: () => void }>();
  private closedFlag = false;

  constructor(private readonly opts: SequencedBufferOptions) {
    if (!(opts.capacity >= 1)) throw new Error('capacity must be at least 1');
  }

  /** Sequence number of the newest item pushed so far (0 before any). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Sequence number of the oldest retained item (lastSeq + 1 when empty). */
  get firstSeq(): number {
    return this.size > 0 ? this.items[this.head].seq : this.nextSeq;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Appends an item, evicts beyond the budgets and tells every subscriber. Returns its seq. */
  push(item: T): number {
    if (this.closedFlag) return 0;
    const bytes = (this.opts.sizeOf ?? defaultSize)(item);
    const e: Sequenced<T> = { seq: this.nextSeq++, item, bytes };
    this.items.push(e);
    this.bytes += bytes;
    while (this.size > this.opts.capacity || (this.opts.maxBytes !== undefined && this.bytes > this.opts.maxBytes && this.size > 1)) {
      this.bytes -= this.items[this.head].bytes;
      this.head++;
    }
    // Compact occasionally instead of shifting on every eviction.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    for (const l of [...this.listeners]) l.fn(e);
    return e.seq;
  }

  /** Retained items, oldest first. */
  retained(): Sequenced<T>[] {
    return this.items.slice(this.head);
  }

  /** Retained items with seq > `after`, oldest first. */
  after(after: number): Sequenced<T>[] {
    const first = this.firstSeq;
    const start = Math.max(0, after + 1 - first);
    return this.items.slice(this.head + start);
  }

  /**
   * Replays retained items with seq > `after` (none when `after` is undefined: live only),
   * then delivers new ones. `end` runs once when the buffer closes.
   */
  subscribe(fn: (e: Sequenced<T>) => void, opts: { after?: number; end?: () => void } = {}): BufferSubscription {
    if (opts.after !== undefined) for (const e of this.after(opts.after)) fn(e);
    const l = { fn, end: opts.end ?? (() => {}) };
    if (this.closedFlag) {
      l.end();
      return { unsubscribe() {} };
    }
    this.listeners.add(l);
    return { unsubscribe: () => void this.listeners.delete(l) };
  }

  /** No more items: subscribers' `end` runs; retained items stay readable. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    const all = [...this.listeners];
    this.listeners.clear();
    for (const l of all) l.end();
  }
}

function defaultSize(item: unknown): number {
  try {
    return JSON.stringify(item)?.length ?? 0;
  } catch {
    return 0;
  }
}
