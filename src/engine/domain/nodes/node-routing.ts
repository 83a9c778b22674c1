/**
 * Which node answers for a session or a pool. A session's browser runs on the node that
 * created it (`browser_sessions.node_id`), a pool's browsers on the node that runs it
 * (`browser_pools.node_id`). Lookups go through the caller's org/project scope (by id or
 * name), so a caller can never learn that another org's session exists from how we route.
 * When the owner is dead (its lease freed, or its heartbeat stale: node-registry.ts), whatever
 * it ran is lost: its sessions are ended `node_lost` and its pools are taken over by the
 * noticing node; the request is then answered locally with the usual "ended"/pool answers. A
 * node that does not hold its own lease claims nothing: it may be the one cut off.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { AuthContext } from '../org/auth-context.js';
import type { Clock } from '../../../shared/clock.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { PoolService } from '../pools/pool-service.js';
import { findPool, type PoolRow } from '../pools/pool-records.js';
import type { NodeRegistry } from './node-registry.js';
import type { ResourceChanges } from '../../events/resource-changes.js';

export type NodeRoute = { kind: 'local' } | { kind: 'forward'; nodeId: string; url: string } | { kind: 'unavailable'; nodeId: string; why: string };

const LOCAL: NodeRoute = { kind: 'local' };

export class NodeRouter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registry: NodeRegistry,
    private readonly sessions: SessionManager,
    private readonly pools: () => PoolService | undefined,
    private readonly clock: Clock,
    /** Where its writes are announced (the change feed). */
    private readonly changes: ResourceChanges,
  ) {}

  get nodeId(): string {
    return this.registry.nodeId;
  }

  /**
   * Where a request for session `idOrName` (as this caller sees it) must be answered. With
   * `ended`, a session that has ended is still routed to its node while that node lives
   * (replay files outlive their session on the node that recorded them).
   */
  async session(auth: AuthContext, idOrName: string, ended = false): Promise<NodeRoute> {
    if (this.sessions.get(idOrName)) return LOCAL; // the common case costs no query
    const row = await this.sessions.findRow(auth, idOrName, ended);
    if (!row || row.node_id === this.nodeId) return LOCAL;
    if (row.deleted_at) {
      const s = await this.registry.stateOf(row.node_id);
      return s.state === 'alive' ? { kind: 'forward', nodeId: row.node_id, url: s.url } : LOCAL;
    }
    return this.owner(row.node_id);
  }

  /** Where a session upgrade must go, for a caller already known to be of `orgId` (and `projectId`). */
  async sessionById(id: string, orgId: string, projectId: string | null): Promise<NodeRoute> {
    if (this.sessions.get(id)) return LOCAL;
    let q = this.db.selectFrom('browser_sessions').select('node_id').where('id', '=', id).where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (projectId) q = q.where('project_id', '=', projectId);
    const row = await q.executeTakeFirst();
    if (!row || row.node_id === this.nodeId) return LOCAL;
    return this.owner(row.node_id);
  }

  /** Where a pool operation that needs the pool's runtime (acquire, release, flush, update, delete) must go. */
  async pool(auth: AuthContext, idOrName: string): Promise<NodeRoute> {
    const row = await findPool(this.db, auth, idOrName);
    if (!row || row.node_id === this.nodeId) return LOCAL;
    return this.owner(row.node_id, row);
  }

  /**
   * Where a create (session or pool) asking for `region` must run: here when it is this node's
   * region (or none was asked), else on an alive node of that region. Local when no node serves
   * it: the create then answers 422 `region_unavailable` (session-region.ts).
   */
  async placement(region: string | undefined): Promise<NodeRoute> {
    if (region === undefined || region === this.registry.region) return LOCAL;
    const node = await this.registry.liveNodeIn(region);
    return node ? { kind: 'forward', nodeId: node.id, url: node.url } : LOCAL;
  }

  private async owner(nodeId: string, pool?: PoolRow): Promise<NodeRoute> {
    const s = await this.registry.stateOf(nodeId);
    if (s.state === 'alive') return { kind: 'forward', nodeId, url: s.url };
    if (s.state === 'unavailable') return { kind: 'unavailable', nodeId, why: s.why };
    if (s.state === 'dead') {
      if (!this.registry.holdsLease())
        return { kind: 'unavailable', nodeId, why: `this engine node lost its database lease; engine node ${nodeId} cannot be judged` };
      await this.endLostSessions(nodeId);
      if (pool) await this.adoptPool(pool);
    }
    return LOCAL;
  }

  /** Ends every active session of a dead node (`node_lost`); idempotent across nodes. */
  async endLostSessions(nodeId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('browser_sessions')
      .select(['id', 'created_at', 'org_id', 'project_id'])
      .where('node_id', '=', nodeId)
      .where('deleted_at', 'is', null)
      .execute();
    const now = this.clock.now();
    const ended: string[] = [];
    for (const r of rows) {
      const res = await this.db
        .updateTable('browser_sessions')
        .set({
          deleted_at: now.toISOString(),
          ended_reason: 'node_lost',
          ended_by: `node:${nodeId}`,
          uptime_ms: Math.max(0, now.getTime() - Date.parse(r.created_at)),
          pid: null,
          pgid: null,
          xvfb_pid: null,
        })
        .where('id', '=', r.id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) {
        ended.push(r.id);
        this.changes.delete(r.org_id, 'session', r.id, r.project_id);
      }
    }
    return ended;
  }

  /** Takes over a dead node's pool (one node wins the conditional update) and starts filling it here. */
  async adoptPool(pool: PoolRow): Promise<boolean> {
    const service = this.pools();
    if (!service) return false;
    const res = await this.db
      .updateTable('browser_pools')
      .set({ node_id: this.nodeId })
      .where('id', '=', pool.id)
      .where('node_id', '=', pool.node_id)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    service.run({ ...pool, node_id: this.nodeId });
    return true;
  }

  /**
   * The sweep (every `SWEEP_MS`): sessions and pools of dead nodes are ended/adopted even when
   * no request asks for them (so lists stop showing them and pools keep serving). Skipped while
   * this node does not hold its own lease.
   */
  async sweepDeadNodes(): Promise<void> {
    if (!this.registry.holdsLease()) return;
    const sessionNodes = await this.db
      .selectFrom('browser_sessions')
      .select('node_id')
      .distinct()
      .where('deleted_at', 'is', null)
      .where('node_id', '!=', this.nodeId)
      .execute();
    const poolRows = await this.db.selectFrom('browser_pools').selectAll().where('node_id', '!=', this.nodeId).execute();
    const nodes = new Set([...sessionNodes.map((r) => r.node_id), ...poolRows.map((r) => r.node_id)]);
    for (const nodeId of nodes) {
      if ((await this.registry.stateOf(nodeId)).state !== 'dead') continue;
      await this.endLostSessions(nodeId);
      for (const p of poolRows) if (p.node_id === nodeId) await this.adoptPool(p);
    }
  }

  /**
   * Sessions this node still runs whose rows another node ended (declared lost while this node
   * was unreachable, or deleted through a path that only updates the row): end them here too,
   * so no browser outlives its row. Likewise pools another node adopted meanwhile stop filling here.
   */
  async reapEndedElsewhere(): Promise<void> {
    await this.pools()?.stopAdoptedElsewhere();
    const running = this.sessions.all();
    if (running.length === 0) return;
    const ids = running.map((rt) => rt.id);
    const rows = await this.db
      .selectFrom('browser_sessions')
      .select(['id', 'ended_reason'])
      .where('id', 'in', ids)
      .where('deleted_at', 'is not', null)
      .execute();
    for (const r of rows) {
      const rt = this.sessions.get(r.id);
      if (rt) await this.sessions.end(rt, r.ended_reason ?? 'deleted');
    }
  }
}
