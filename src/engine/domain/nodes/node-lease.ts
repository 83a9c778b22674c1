/**
 * A node's lease: while it lives, each node holds a PostgreSQL advisory lock on a dedicated
 * connection (store/pg-advisory-lease.ts), keyed by its id. The database frees the lock when
 * that connection's backend ends, which happens as soon as the node's process dies, so peers
 * see a killed node within a sweep or two instead of after its heartbeat goes stale.
 *
 * The rule (docs/architecture/multi-node.md#node-loss): a node whose lock has been seen free on
 * sweeps at least `LEASE_GRACE_MS` apart is lost. The grace lets a node whose connection merely
 * dropped take its lock again (it retries every `LEASE_RETRY_MS`) before anyone gives up on it.
 * A judge judges only while it has held its own lease for `LEASE_SETTLE_MS`: after a database
 * restart every node reconnects at once, and the first one back must not declare the others
 * lost before they had their turn. A node that is not holding its own lease judges nobody.
 */
import { createHash } from 'node:crypto';

/** The advisory lock class of node leases ('BDNL'), so other users of advisory locks in the database keep out of the way. */
export const NODE_LEASE_CLASS = 0x42444e4c;
/** How often a dropped lease connection is opened again. */
export const LEASE_RETRY_MS = 250;
/** How long a node's lock must be seen free before the node is lost. */
export const LEASE_GRACE_MS = 1_500;
/** How long a node must have held its own lease before it judges others. */
export const LEASE_SETTLE_MS = 3_000;
/** How often each node reads the leases (one cheap `pg_locks` query) and sweeps what lost nodes ran. */
export const SWEEP_MS = 1_000;

/** The lock's second key half (signed int4) for a node id: the first 4 bytes of its SHA-256. */
export function leaseKeyOf(nodeId: string): number {
  return createHash('sha256').update(nodeId).digest().readInt32BE(0);
}

/** The same key as `pg_locks.objid` shows it (an unsigned oid). */
export function leaseObjId(key: number): number {
  return key >>> 0;
}

/** One sweep's view of another node: whether it names a lease, and whether that lock is held. */
export interface LeaseSighting {
  nodeId: string;
  held: boolean;
}

/** Remembers since when each node's lock has been seen free, and which nodes are lost. */
export class LeaseWatch {
  private readonly freeSince = new Map<string, number>();
  private readonly lost = new Set<string>();

  constructor(
    private readonly graceMs = LEASE_GRACE_MS,
    private readonly settleMs = LEASE_SETTLE_MS,
  ) {}

  /**
   * Records one sweep at `now`. `ownHeldSince`: when this node took its own lease (undefined
   * while it has none). Nodes not in `sightings` are forgotten (their row went, or stopped
   * naming a lease).
   */
  observe(now: number, ownHeldSince: number | undefined, sightings: readonly LeaseSighting[]): void {
    const seen = new Set(sightings.map((s) => s.nodeId));
    for (const id of [...this.freeSince.keys()]) if (!seen.has(id)) this.freeSince.delete(id);
    for (const id of [...this.lost]) if (!seen.has(id)) this.lost.delete(id);
    const judging = ownHeldSince !== undefined && now - ownHeldSince >= this.settleMs;
    if (!judging) {
      // What was seen before this node lost (or re-took) its own lease proves nothing now.
      this.freeSince.clear();
      return;
    }
    for (const s of sightings) {
      if (s.held) {
        this.freeSince.delete(s.nodeId);
        this.lost.delete(s.nodeId);
        continue;
      }
      if (this.lost.has(s.nodeId)) continue;
      const first = this.freeSince.get(s.nodeId);
      if (first === undefined) this.freeSince.set(s.nodeId, now);
      else if (now - first >= this.graceMs) {
        this.freeSince.delete(s.nodeId);
        this.lost.add(s.nodeId);
      }
    }
  }

  isLost(nodeId: string): boolean {
    return this.lost.has(nodeId);
  }
}
