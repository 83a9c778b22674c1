/**
 * Batches audit rows so that recording never puts a database round trip on a request's path:
 * rows queue in memory and are written with one multi-row INSERT every `intervalMs` or as soon
 * as `maxBatch` rows wait. `close()` writes everything still queued, so a clean stop loses
 * nothing. A failed write keeps its rows queued (bounded) for the next attempt.
 *
 * The INSERT takes the whole batch as one JSON parameter (`INSERT … SELECT` over SQLite's
 * `json_each` / PostgreSQL's `json_to_recordset`): its SQL text is short and constant, where a
 * VALUES list of 500 × 15 placeholders cost more to build and prepare than to execute.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { DialectName } from '../../store/database.js';
import type { AuditRecord } from './audit-record.js';

const TEXT_COLUMNS = ['org_id', 'timestamp', 'auth_strategy', 'user_id', 'email', 'method', 'path', 'route', 'domain', 'service', 'client_ip', 'user_agent'] as const;
const INT_COLUMNS = ['status', 'duration_ms'] as const;
const COLUMNS = [...TEXT_COLUMNS, ...INT_COLUMNS];

function batchInsert(dialect: DialectName): (json: string) => RawBuilder<unknown> {
  const cols = sql.raw(COLUMNS.map((c) => `"${c}"`).join(', '));
  if (dialect === 'postgres') {
    const defs = sql.raw([...TEXT_COLUMNS.map((c) => `"${c}" text`), ...INT_COLUMNS.map((c) => `"${c}" integer`)].join(', '));
    return (json) => sql`insert into audit_logs (${cols}) select ${cols} from json_to_recordset(${json}::json) as r(${defs})`;
  }
  const picks = sql.raw(COLUMNS.map((c) => `value ->> '$.${c}'`).join(', '));
  return (json) => sql`insert into audit_logs (${cols}) select ${picks} from json_each(${json})`;
}

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
  private readonly intervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  /** Rows dropped because the queue overflowed while writes failed. */
  dropped = 0;

  private readonly insert: (json: string) => RawBuilder<unknown>;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: DialectName,
    private readonly opts: AuditWriterOptions = {},
  ) {
    this.insert = batchInsert(dialect);
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
    this.chain = this.chain.then(() => this.drain());
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
        await this.insert(JSON.stringify(batch)).execute(this.db);
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
