/**
 * The node registry: engines sharing one PostgreSQL database announce themselves in
 * `engine_nodes` (id, the address other nodes forward to, a heartbeat) and read each other's
 * state from it. A node is alive while its heartbeat is fresher than `STALE_AFTER_MS`; a node
 * that stops cleanly marks `stopped_at` (its sessions are being ended by itself, so they are
 * neither forwarded nor declared lost). Reads are cached briefly: request routing asks on
 * every forwarded request and a heartbeat only changes every few seconds anyway. Each row also
 * carries the node's `--region`, where creates asking for that region are placed (`liveNodeIn`).
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, EngineNodeTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';

export const HEARTBEAT_MS = 5_000;
/** Three missed heartbeats and a node is dead. */
export const STALE_AFTER_MS = 3 * HEARTBEAT_MS;
/** Rows of nodes silent for this long are removed at start (a data dir that is gone for good). */
const FORGET_AFTER_MS = 7 * 24 * 3600 * 1000;
const CACHE_MS = 1_000;

export type NodeState =
  | { state: 'self' }
  | { state: 'alive'; url: string }
  /** Stopping cleanly, or registered but not listening yet (no address). */
  | { state: 'unavailable'; why: string }
  /** Stale heartbeat or no row at all: whatever it ran is lost. */
  | { state: 'dead' };

export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;
  private readonly cache = new Map<string, { at: number; row: Selectable<EngineNodeTable> | undefined }>();

  constructor(
    private readonly db: Kysely<Database>,
    readonly nodeId: string,
    /** This node's `--region`. */
    readonly region: string,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Announces this node (again), with `url` as its address; '' until it is known. */
  async register(url: string): Promise<void> {
    const now = this.now();
    await this.db
      .insertInto('engine_nodes')
      .values({ id: this.nodeId, internal_url: url, started_at: now, heartbeat_at: now, stopped_at: null, region: this.region })
      .onConflict((oc) => oc.column('id').doUpdateSet({ internal_url: url, started_at: now, heartbeat_at: now, stopped_at: null, region: this.region }))
      .execute();
    const cutoff = new Date(this.clock.now().getTime() - FORGET_AFTER_MS).toISOString();
    await this.db.deleteFrom('engine_nodes').where('heartbeat_at', '<', cutoff).execute();
  }

  async setUrl(url: string): Promise<void> {
    await this.db.updateTable('engine_nodes').set({ internal_url: url, heartbeat_at: this.now() }).where('id', '=', this.nodeId).execute();
  }

  /** Heartbeats every `HEARTBEAT_MS` until `markStopped`; `tick` runs after each beat. */
  startHeartbeat(url: () => string, tick: () => Promise<void>): void {
    this.timer = setInterval(() => {
      void this.beat(url())
        .then(() => (this.timer ? tick() : undefined))
        .catch(this.onError);
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  private async beat(url: string): Promise<void> {
    const r = await this.db
      .updateTable('engine_nodes')
      .set({ heartbeat_at: this.now() })
      .where('id', '=', this.nodeId)
      .where('stopped_at', 'is', null)
      .executeTakeFirst();
    // Someone removed our row (an operator cleaning up): announce again.
    if (Number(r.numUpdatedRows) === 0 && this.timer) await this.register(url);
  }

  /** Clean stop: no more heartbeats; other nodes stop forwarding here. */
  async markStopped(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.db.updateTable('engine_nodes').set({ stopped_at: this.now() }).where('id', '=', this.nodeId).execute();
  }

  async stateOf(nodeId: string): Promise<NodeState> {
    if (nodeId === this.nodeId) return { state: 'self' };
    const nowMs = this.clock.now().getTime();
    let hit = this.cache.get(nodeId);
    if (!hit || nowMs - hit.at > CACHE_MS) {
      hit = { at: nowMs, row: await this.db.selectFrom('engine_nodes').selectAll().where('id', '=', nodeId).executeTakeFirst() };
      this.cache.set(nodeId, hit);
    }
    const row = hit.row;
    if (!row || nowMs - Date.parse(row.heartbeat_at) > STALE_AFTER_MS) return { state: 'dead' };
    if (row.stopped_at) return { state: 'unavailable', why: `engine node ${nodeId} is stopping` };
    if (!row.internal_url) return { state: 'unavailable', why: `engine node ${nodeId} is starting` };
    return { state: 'alive', url: row.internal_url };
  }

  /**
   * An alive, listening node of `region` other than this one, for a create asking for that
   * region: the one running the fewest sessions (one grouped query; ties by id). Undefined
   * when no such node is alive. Not cached: a create is rare next to the requests it routes.
   */
  async liveNodeIn(region: string): Promise<{ id: string; url: string } | undefined> {
    const fresh = new Date(this.clock.now().getTime() - STALE_AFTER_MS).toISOString();
    const row = await this.db
      .selectFrom('engine_nodes as n')
      .leftJoin('browser_sessions as s', (j) => j.onRef('s.node_id', '=', 'n.id').on('s.deleted_at', 'is', null))
      .select((eb) => ['n.id', 'n.internal_url', eb.fn.count<number>('s.id').as('running')])
      .where('n.region', '=', region)
      .where('n.id', '!=', this.nodeId)
      .where('n.stopped_at', 'is', null)
      .where('n.internal_url', '!=', '')
      .where('n.heartbeat_at', '>=', fresh)
      .groupBy(['n.id', 'n.internal_url'])
      .orderBy('running')
      .orderBy('n.id')
      .executeTakeFirst();
    return row ? { id: row.id, url: row.internal_url } : undefined;
  }

  /** Forgets what was cached about a node (after a failed forward, ask the database again). */
  forget(nodeId: string): void {
    this.cache.delete(nodeId);
  }
}
