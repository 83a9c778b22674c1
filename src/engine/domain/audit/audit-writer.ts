/**
 * Batches audit rows so that recording never puts a database round trip on a request's path:
 * rows queue in memory and are written by one multi-row INSERT (see audit-insert.ts) every
 * `intervalMs` or as soon as `maxBatch` rows wait. `close()` writes everything still queued,
 * so a clean stop loses nothing. A failed write keeps its rows queued (bounded) for the next
 * attempt.
 */
import type { AuditRecord } from './audit-record.js';
import type { BatchInsert } from './audit-insert.js';

export interface AuditWriterOptions {
  intervalMs?: number;
  /** Rows per INSERT. */
  maxBatch?: number;
  /** Rows kept while the database refuses writes; beyond it the oldest are dropped (and counted). */
  maxQueued?: number;
  onError?: (err: unknown, rows: number) => void;
}

export class AuditWriter {
  private queue: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  /** A drain is chained and has not started yet (it will take every row queued by then). */
  private scheduled = false;
  private readonly intervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  /** Rows dropped because the queue overflowed while writes failed. */
  dropped = 0;

  constructor(
    private readonly insert: BatchInsert,
    private readonly opts: AuditWriterOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 200;
    this.maxBatch = opts.maxBatch ?? 500;
    this.maxQueued = opts.maxQueued ?? 100_000;
  }

  get pending(): number {
    return this.queue.length;
  }

  add(row: AuditRecord): void {
    if (this.closed) {
      // Only reachable if something records after stop; write it alone rather than lose it.
      this.queue.push(row);
      void this.flush();
      return;
    }
    this.queue.push(row);
    if (this.queue.length >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Writes everything queued now; resolves when those rows are stored (or failed). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      this.chain = this.chain.then(() => {
        this.scheduled = false;
        return this.drain();
      });
    }
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.insert(batch);
      } catch (err) {
        this.opts.onError?.(err, batch.length);
        this.queue.unshift(...batch);
        const over = this.queue.length - this.maxQueued;
        if (over > 0) {
          this.queue.splice(0, over);
          this.dropped += over;
        }
        if (!this.closed && !this.timer) {
          this.timer = setTimeout(() => void this.flush(), this.intervalMs * 5);
          this.timer.unref();
        }
        return;
      }
    }
  }
}
