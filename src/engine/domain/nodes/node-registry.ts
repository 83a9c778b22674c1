/**
 * The node registry: engines sharing one PostgreSQL database announce themselves in
 * `engine_nodes` (id, the address other nodes forward to, a heartbeat, the key of their lease)
 * and read each other's state from it. A node is lost when its lease has been seen free for a
 * moment (node-lease.ts: its process is gone, whatever its heartbeat says) or its heartbeat is
 * older than `staleAfterMs` (the fallback for a node that hangs while its connection lives, and
 * for a node without a lease); a node that stops cleanly marks `stopped_at` (its sessions are
 * being ended by itself, so they are neither forwarded nor declared lost). Reads are cached
 * briefly: request routing asks on every forwarded request and a row only changes every few
 * seconds anyway. Each row also carries the node's `--region`, where creates asking for that
 * region are placed (`liveNodeIn`).
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, EngineNodeTable } from '../../store/schema.js';
import type { Clock } from '../../../shared/clock.js';
import { grantedAdvisoryLocks } from '../../store/pg-advisory-lease.js';
import { LeaseWatch, NODE_LEASE_CLASS, leaseObjId } from './node-lease.js';

export const HEARTBEAT_MS = 5_000;
/** Three missed heartbeats and a node is dead (`--node-heartbeat-timeout-seconds`). */
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

/** This node's own lease, as the registry needs it: its key and since when it is held. */
export interface OwnLease {
  key: number;
  heldSince(): number | undefined;
}

export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;
  private readonly cache = new Map<string, { at: number; row: Selectable<EngineNodeTable> | undefined }>();
  private readonly leases = new LeaseWatch();

  constructor(
    private readonly db: Kysely<Database>,
    readonly nodeId: string,
    /** This node's `--region`. */
    readonly region: string,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
    private readonly lease: OwnLease,
    /** A heartbeat older than this and the node is dead even while its lease is held. */
    private readonly staleAfterMs = STALE_AFTER_MS,
  ) {}

  /** Whether this node holds its own lease now: without it, it claims nothing of other nodes. */
  holdsLease(): boolean {
    return this.lease.heldSince() !== undefined;
  }

  /**
   * One look at every other node's lease (one `pg_locks` read): a node whose lock stays free for
   * the grace becomes dead for `stateOf`. Nodes without a lease (an older version) are not judged.
   */
  async observeLeases(): Promise<void> {
    const rows = await this.db
      .selectFrom('engine_nodes')
      .select(['id', 'lease_key'])
      .where('id', '!=', this.nodeId)
      .where('lease_key', 'is not', null)
      .execute();
    const granted = rows.length ? await grantedAdvisoryLocks(this.db, NODE_LEASE_CLASS) : new Set<number>();
    this.leases.observe(
      Date.now(),
      this.lease.heldSince(),
      rows.map((r) => ({ nodeId: r.id, held: granted.has(leaseObjId(r.lease_key as number)) })),
    );
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Announces this node (again), with `url` as its address; '' until it is known. */
  async register(url: string): Promise<void> {
    const now = this.now();
    await this.db
      .insertInto('engine_nodes')
      .values({ id: this.nodeId, internal_url: url, started_at: now, heartbeat_at: now, stopped_at: null, region: this.region, lease_key: this.lease.key })
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet({ internal_url: url, started_at: now, heartbeat_at: now, stopped_at: null, region: this.region, lease_key: this.lease.key }),
      )
      .execute();
    const cutoff = new Date(this.clock.now().getTime() - FORGET_AFTER_MS).toISOString();
    await this.db.deleteFrom('engine_nodes').where('heartbeat_at', '<', cutoff).execute();
  }

  async setUrl(url: string): Promise<void> {
    await this.db.updateTable('engine_nodes').set({ internal_url: url, heartbeat_at: this.now() }).where('id', '=', this.nodeId).execute();
  }

  /** Heartbeats every `HEARTBEAT_MS` until `markStopped`. */
  startHeartbeat(url: () => string): void {
    this.timer = setInterval(() => void this.beat(url()).catch(this.onError), HEARTBEAT_MS);
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
    if (!row || nowMs - Date.parse(row.heartbeat_at) > this.staleAfterMs || this.leases.isLost(nodeId)) return { state: 'dead' };
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
    const fresh = new Date(this.clock.now().getTime() - this.staleAfterMs).toISOString();
    const rows = await this.db
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
      .execute();
    const row = rows.find((r) => !this.leases.isLost(r.id));
    return row ? { id: row.id, url: row.internal_url } : undefined;
  }

  /** Forgets what was cached about a node (after a failed forward, ask the database again). */
  forget(nodeId: string): void {
    this.cache.delete(nodeId);
  }
}
