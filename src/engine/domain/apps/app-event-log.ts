/**
 * The event history of deployments and invocations: every event (log line, state change,
 * error) gets the owner's next sequence number, is persisted in `app_events` (batched, in
 * order) and is fanned out to live subscribers on this node. History is bounded per owner:
 * after `maxEvents` only state and error events are kept (one notice marks the cut), and each
 * log line is cut at `maxMessageChars`.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';

export interface AppEvent {
  event: string;
  timestamp: string;
  [field: string]: unknown;
}

export interface SequencedEvent {
  seq: number;
  event: AppEvent;
}

interface Listener {
  fn: (e: SequencedEvent) => void;
  end: () => void;
}

interface LiveOwner {
  seq: number;
  count: number;
  truncated: boolean;
  listeners: Set<Listener>;
  pending: Array<{ owner_id: string; seq: number; created_at: string; event: string }>;
  writes: Promise<void>;
}

export interface AppEventLogOptions {
  maxEvents?: number;
  maxMessageChars?: number;
  onWriteError?: (err: unknown) => void;
}

export class AppEventLog {
  private readonly live = new Map<string, LiveOwner>();
  private readonly maxEvents: number;
  private readonly maxMessageChars: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly opts: AppEventLogOptions = {},
  ) {
    this.maxEvents = opts.maxEvents ?? 10_000;
    this.maxMessageChars = opts.maxMessageChars ?? 16_384;
  }

  /** Starts the live log of a new owner on this node. */
  open(ownerId: string): void {
    if (!this.live.has(ownerId)) this.live.set(ownerId, { seq: 0, count: 0, truncated: false, listeners: new Set(), pending: [], writes: Promise.resolve() });
  }

  isLive(ownerId: string): boolean {
    return this.live.has(ownerId);
  }

  now(): string {
    return this.clock.now().toISOString();
  }

  /** A `log` event; its text is cut at the per-line bound. */
  log(ownerId: string, message: string): void {
    const text =
      message.length > this.maxMessageChars ? `${message.slice(0, this.maxMessageChars)}… [line cut at ${this.maxMessageChars} characters]` : message;
    this.append(ownerId, { event: 'log', timestamp: this.now(), message: text });
  }

  /** Appends an event to a live owner (ignored when the owner is not live here). */
  append(ownerId: string, event: AppEvent): void {
    const o = this.live.get(ownerId);
    if (!o) return;
    if (event.event === 'log' && o.count >= this.maxEvents) {
      if (o.truncated) return;
      o.truncated = true;
      event = { event: 'log', timestamp: event.timestamp, message: `[log truncated: more than ${this.maxEvents} events; later lines are not kept]` };
    }
    o.count++;
    const e: SequencedEvent = { seq: ++o.seq, event };
    o.pending.push({ owner_id: ownerId, seq: e.seq, created_at: event.timestamp, event: JSON.stringify(event) });
    if (o.pending.length === 1) o.writes = o.writes.then(() => this.writeBatch(o));
    for (const l of [...o.listeners]) l.fn(e);
  }

  private async writeBatch(o: LiveOwner): Promise<void> {
    const rows = o.pending.splice(0);
    try {
      for (let i = 0; i < rows.length; i += 500)
        await this.db
          .insertInto('app_events')
          .values(rows.slice(i, i + 500))
          .execute();
    } catch (err) {
      this.opts.onWriteError?.(err);
    }
  }

  /** Resolves once every event appended so far is stored. */
  async flush(ownerId: string): Promise<void> {
    await this.live.get(ownerId)?.writes;
  }

  /** No more events for this owner: stores what is pending, then ends every subscriber. */
  async close(ownerId: string): Promise<void> {
    const o = this.live.get(ownerId);
    if (!o) return;
    await o.writes;
    this.live.delete(ownerId);
    for (const l of o.listeners) l.end();
    o.listeners.clear();
  }

  /** Live events of an owner; undefined when it is not live on this node. */
  subscribe(ownerId: string, fn: (e: SequencedEvent) => void, end: () => void): (() => void) | undefined {
    const o = this.live.get(ownerId);
    if (!o) return undefined;
    const l = { fn, end };
    o.listeners.add(l);
    return () => void o.listeners.delete(l);
  }

  /** Stored events with seq > `afterSeq` and at/after `since`, oldest first (waits for pending writes). */
  async history(ownerId: string, opts: { afterSeq?: number; since?: Date } = {}): Promise<SequencedEvent[]> {
    await this.flush(ownerId);
    let q = this.db
      .selectFrom('app_events')
      .select(['seq', 'event'])
      .where('owner_id', '=', ownerId)
      .where('seq', '>', opts.afterSeq ?? 0);
    if (opts.since) q = q.where('created_at', '>=', opts.since.toISOString());
    const rows = await q
      .orderBy('seq', 'asc')
      .limit(this.maxEvents + 100)
      .execute();
    return rows.map((r) => ({ seq: Number(r.seq), event: JSON.parse(r.event) as AppEvent }));
  }

  async deleteOwner(ownerId: string): Promise<void> {
    await this.close(ownerId);
    await this.db.deleteFrom('app_events').where('owner_id', '=', ownerId).execute();
  }
}
