/**
 * Browser pools: warm sessions launched ahead of time with the pool's options and handed out
 * by `acquire` in one database update (no browser start on the request path). A pool reserves
 * `size` slots of the org/project concurrency from the moment it exists (checked atomically
 * with the session manager's accounting). Idle browsers are session rows in state 'idle',
 * hidden from GET /browsers and held active; an acquired one is a normal session. Releasing
 * ends that session (its JWT dies with it; the answer comes before its teardown) and a fresh
 * browser takes its place: with `reuse` at once, without it at the pool's fill rate. See
 * docs/use/pools.md.
 */
import type { EngineContext } from '../../context.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { newId } from '../ids.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { SessionDto } from '../sessions/session-record.js';
import { updateSession } from '../sessions/session-update.js';
import { validateName, validateStartUrl, validateTags, normalizeTelemetry } from '../sessions/session-options.js';
import type { ProfileService } from '../profiles/profile-binding.js';
import type { ProxyHooks } from '../sessions/session-hooks.js';
import type { ExtensionService } from '../extensions/extension-service.js';
import type { PoolAcquire, PoolConfig, PoolCreate, PoolUpdate, BrowserPool } from '../../../shared/wire/pools.js';
import { configFromCreate, configWithUpdate, launchesPerMinute, sessionBodyOf } from './pool-config.js';
import { assertPoolNameFree, configOf, getPool, poolCounts, poolDto, reservedSlots, type PoolRow, type PoolScope } from './pool-records.js';
import { PoolRuntime } from './pool-runtime.js';
import { navigateFirstPage } from './pool-navigate.js';

/** Long-poll default: well below the official client's 60 s request timeout. */
export const DEFAULT_ACQUIRE_TIMEOUT_SECONDS = 30;

/** What pools launch their browsers with (built before the pools in compose.ts). */
export interface PoolServices {
  sessions: SessionManager;
  profiles: ProfileService;
  proxies: ProxyHooks;
  extensions: ExtensionService;
}

export class PoolService {
  private readonly runtimes = new Map<string, PoolRuntime>();
  private readonly configs = new Map<string, { row: PoolRow; config: PoolConfig }>();
  private readonly idleHolds = new Map<string, () => void>();
  private readonly replaceOnEnd = new Set<string>();

  constructor(
    private readonly ctx: EngineContext,
    private readonly services: PoolServices,
  ) {}

  private get sessions(): SessionManager {
    return this.services.sessions;
  }

  private now(): string {
    return this.ctx.clock.now().toISOString();
  }

  /** Registers the pools' reservations with the session limits (once, at feature start). */
  install(): void {
    this.sessions.limits.addReservationCounter((trx, orgId, projectId) => reservedSlots(trx, orgId, projectId));
    this.ctx.projects.addUsageCounter(async (projectId) => {
      const r = await this.ctx.db
        .selectFrom('browser_pools')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return { what: 'browser pools', count: Number(r?.n ?? 0) };
    });
    this.services.profiles.profiles.onSaved((profileId) => void this.refreshProfile(profileId));
  }

  /** A profile's saved state changed: idle browsers that loaded the old state are replaced. */
  private async refreshProfile(profileId: string): Promise<void> {
    for (const [poolId, { row, config }] of this.configs) {
      if (row.profile_id !== profileId || config.refresh_on_profile_update === false) continue;
      const rt = this.runtimes.get(poolId);
      if (!rt) continue;
      await Promise.all(rt.drainIdle().map((id) => this.endSession(id, 'pool_profile_updated')));
      rt.fill();
    }
  }

  private async resolveProfileId(scope: PoolScope, c: PoolConfig): Promise<string | null> {
    if (!c.profile) return null;
    const service = this.services.profiles;
    const key = (c.profile.id || c.profile.name) as string;
    const p = await service.profiles.find(scope, key);
    if (!p) throw new DomainError(404, 'profile_not_found', `profile '${key}' not found`);
    return p.id;
  }

  /** A pool whose browsers could never start must be refused now, not retried forever. */
  private async checkProxy(auth: AuthContext, c: PoolConfig): Promise<void> {
    if (!c.proxy_id) return;
    const hooks = this.services.proxies;
    const resolved = await hooks.resolve(auth, c.proxy_id);
    await resolved.release?.();
  }

  async dto(row: PoolRow): Promise<BrowserPool> {
    return poolDto(row, await poolCounts(this.ctx.db, row.id), await this.extensionIds(row));
  }

  /** The ids of the pool's extensions that still exist (a deleted one is left out). */
  private async extensionIds(row: PoolRow): Promise<string[]> {
    const selectors = configOf(row).extensions ?? [];
    const service = this.services.extensions;
    if (!selectors.length) return [];
    const scope = { orgId: row.org_id, projectId: row.project_id };
    const ids: string[] = [];
    for (const s of selectors) {
      const r = await service.extensions.find(scope, (s.id || s.name) as string);
      if (r && !ids.includes(r.id)) ids.push(r.id);
    }
    return ids;
  }

  /** A pool whose extensions do not exist is refused now (404 naming it), not retried forever. */
  private async checkExtensions(scope: PoolScope, c: PoolConfig): Promise<void> {
    if (!c.extensions?.length) return;
    await this.services.extensions.resolve(scope, c.extensions);
  }

  async create(auth: AuthContext, body: PoolCreate): Promise<PoolRow> {
    const scope = { orgId: auth.orgId, projectId: auth.projectId };
    const config = configFromCreate(body, this.ctx.config.region);
    const profileId = await this.resolveProfileId(scope, config);
    await this.checkExtensions(scope, config);
    await this.checkProxy(auth, config);
    const now = this.now();
    const row: PoolRow = {
      id: newId(),
      org_id: auth.orgId,
      project_id: auth.projectId,
      name: config.name ?? null,
      size: config.size,
      config: JSON.stringify(config),
      profile_id: profileId,
      node_id: this.sessions.nodeId,
      created_at: now,
      updated_at: now,
    };
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.sessions.limits.lock(trx, auth.orgId);
      if (row.name) await assertPoolNameFree(trx, scope, row.name);
      await this.sessions.limits.assertSlots(trx, auth.orgId, auth.projectId, row.size);
      await trx.insertInto('browser_pools').values(row).execute();
    });
    this.run(row);
    this.ctx.changes.upsert(row.org_id, 'pool', row.id, row.project_id);
    return row;
  }

  /** Starts filling a pool on this node. */
  run(row: PoolRow): void {
    const config = configOf(row);
    this.configs.set(row.id, { row, config });
    const rt = new PoolRuntime(config.size, launchesPerMinute(config), {
      launch: () => this.launch(row.id),
      end: (id, reason) => this.endSession(id, reason),
      onError: (err) => this.ctx.log.warn({ err, pool: row.id }, 'pool browser launch failed'),
    });
    this.runtimes.set(row.id, rt);
    rt.fill();
  }

  private async launch(poolId: string): Promise<string> {
    const entry = this.configs.get(poolId);
    if (!entry) throw new Error('pool is gone');
    const { row, config } = entry;
    const auth: AuthContext = {
      orgId: row.org_id,
      projectId: row.project_id,
      credentialProjectId: row.project_id,
      strategy: 'api_key',
      userId: `pool:${row.id}`,
      email: '',
    };
    const dto = await this.sessions.create(auth, sessionBodyOf(config), { pool: { id: row.id, ...(row.name ? { name: row.name } : {}) }, skipLimits: true });
    const id = dto.session_id;
    const handle = this.sessions.get(id);
    if (!handle) throw new Error('pooled browser ended during start');
    // Idle browsers never time out; the inactivity clock starts at acquire.
    this.idleHolds.set(id, handle.holdActive());
    handle.scope.defer('pool slot', () => this.onSessionEnded(poolId, id));
    await this.ctx.db.updateTable('browser_sessions').set({ pool_state: 'idle' }).where('id', '=', id).where('deleted_at', 'is', null).execute();
    return id;
  }

  private onSessionEnded(poolId: string, id: string): void {
    this.idleHolds.get(id)?.();
    this.idleHolds.delete(id);
    const replace = this.replaceOnEnd.delete(id);
    this.runtimes.get(poolId)?.ended(id, replace);
  }

  private async endSession(id: string, reason: string): Promise<void> {
    const rt = this.sessions.get(id);
    if (rt) await this.sessions.end(rt, reason);
  }

  private runtimeOf(row: PoolRow): PoolRuntime {
    const rt = this.runtimes.get(row.id);
    if (!rt) throw new DomainError(503, 'pool_unavailable', `browser pool '${row.id}' is run by another engine node (${row.node_id})`);
    return rt;
  }

  /** Hands out a warm browser, or undefined when none became free within the timeout (→ 204). */
  async acquire(auth: AuthContext, idOrName: string, body: PoolAcquire): Promise<SessionDto | undefined> {
    const row = await getPool(this.ctx.db, auth, idOrName);
    const rt = this.runtimeOf(row);
    if (body.name !== undefined) validateName(body.name);
    if (body.tags !== undefined) validateTags(body.tags);
    if (body.telemetry !== undefined) normalizeTelemetry(body.telemetry);
    if (body.start_url !== undefined) validateStartUrl(body.start_url);
    const deadline = Date.now() + (body.acquire_timeout_seconds ?? DEFAULT_ACQUIRE_TIMEOUT_SECONDS) * 1000;
    for (;;) {
      const id = await rt.take(Math.max(0, deadline - Date.now()));
      if (!id) return undefined;
      const session = this.sessions.get(id);
      const claimed = session
        ? await this.ctx.db
            .updateTable('browser_sessions')
            .set({ pool_state: 'acquired' })
            .where('id', '=', id)
            .where('pool_state', '=', 'idle')
            .where('deleted_at', 'is', null)
            .executeTakeFirst()
        : undefined;
      if (!session || Number(claimed?.numUpdatedRows ?? 0) !== 1) {
        rt.ended(id, false);
        continue;
      }
      let sessionRow;
      try {
        // Before a telemetry change starts the collector: it must attach to the tab start_url loads in.
        if (body.start_url) await session.prepareFirstTab();
        const changes = body.name !== undefined || body.tags !== undefined || body.telemetry !== undefined;
        sessionRow = changes
          ? await updateSession(this.ctx.db, this.sessions, auth, id, { name: body.name, tags: body.tags, telemetry: body.telemetry }, this.services.proxies)
          : await this.ctx.db.selectFrom('browser_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        if (body.start_url) await navigateFirstPage(await session.ready(), body.start_url);
      } catch (err) {
        await this.ctx.db.updateTable('browser_sessions').set({ pool_state: 'idle', name: null }).where('id', '=', id).execute();
        rt.giveBack(id);
        throw err;
      }
      this.idleHolds.get(id)?.();
      this.idleHolds.delete(id);
      this.ctx.changes.upsert(row.org_id, 'session', id, row.project_id);
      return this.sessions.dto(sessionRow, session);
    }
  }

  async release(auth: AuthContext, idOrName: string, body: { session_id: string; reuse?: boolean }): Promise<void> {
    const row = await getPool(this.ctx.db, auth, idOrName);
    const s = await this.ctx.db
      .selectFrom('browser_sessions')
      .select(['id', 'pool_id', 'pool_state', 'deleted_at'])
      .where('id', '=', body.session_id)
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .executeTakeFirst();
    if (!s || s.pool_id !== row.id) throw DomainError.notFound(`browser session '${body.session_id}' of pool`, row.name ?? row.id);
    if (s.deleted_at) return; // already ended: releasing twice is harmless
    if (s.pool_state !== 'acquired') throw DomainError.conflict(`browser session '${body.session_id}' is not acquired`, 'session_not_acquired');
    if (body.reuse !== false) this.replaceOnEnd.add(s.id);
    const session = this.sessions.get(s.id);
    if (!session) return this.sessions.delete(auth, s.id);
    // The answer comes before the teardown and the refill (docs/use/pools.md): the session ends
    // now for everyone (row, JWT, name) and is never handed out again (decision 0010), so no
    // acquire can get it while its browser is torn down behind the answer.
    await this.sessions.endSoon(session, body.reuse === false ? 'released' : 'released_for_reuse');
    // Its slot is free now: the replacement launches beside the teardown, not after it — on the
    // next turn of the event loop, once the answer is written (a launch's spawn is synchronous).
    setImmediate(() => this.onSessionEnded(row.id, s.id));
  }

  async flush(auth: AuthContext, idOrName: string): Promise<void> {
    const rt = this.runtimeOf(await getPool(this.ctx.db, auth, idOrName));
    await Promise.all(rt.drainIdle().map((id) => this.endSession(id, 'pool_flushed')));
    rt.fill();
  }

  async update(auth: AuthContext, idOrName: string, body: PoolUpdate): Promise<PoolRow> {
    const scope = { orgId: auth.orgId, projectId: auth.projectId };
    const row = await getPool(this.ctx.db, scope, idOrName);
    const config = configWithUpdate(configOf(row), body);
    const profileId = body.profile !== undefined ? await this.resolveProfileId(scope, config) : row.profile_id;
    if (body.proxy_id) await this.checkProxy(auth, config);
    if (body.extensions !== undefined) await this.checkExtensions(scope, config);
    const next: PoolRow = {
      ...row,
      name: config.name ?? null,
      size: config.size,
      config: JSON.stringify(config),
      profile_id: profileId,
      updated_at: this.now(),
    };
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.sessions.limits.lock(trx, auth.orgId);
      if (next.name && next.name !== row.name) await assertPoolNameFree(trx, scope, next.name, row.id);
      if (next.size > row.size) await this.sessions.limits.assertSlots(trx, auth.orgId, auth.projectId, next.size - row.size);
      await trx
        .updateTable('browser_pools')
        .set({ name: next.name, size: next.size, config: next.config, profile_id: next.profile_id, updated_at: next.updated_at })
        .where('id', '=', row.id)
        .execute();
    });
    const rt = this.runtimes.get(row.id);
    if (rt) {
      this.configs.set(row.id, { row: next, config });
      rt.resize(config.size, launchesPerMinute(config));
      if (body.discard_all_idle) await this.flush(auth, row.id);
    }
    this.ctx.changes.upsert(row.org_id, 'pool', row.id, row.project_id);
    return next;
  }

  async delete(auth: AuthContext, idOrName: string, force: boolean): Promise<void> {
    const row = await getPool(this.ctx.db, auth, idOrName);
    const counts = await poolCounts(this.ctx.db, row.id);
    if (counts.acquired > 0 && !force) {
      throw DomainError.conflict(
        `browser pool '${idOrName}' has ${counts.acquired} acquired browser(s); release them or delete with force: true`,
        'pool_in_use',
      );
    }
    const rt = this.runtimes.get(row.id);
    this.runtimes.delete(row.id);
    this.configs.delete(row.id);
    // A browser still starting is ended before the answer, like the running ones below.
    await rt?.stop();
    const live = await this.ctx.db.selectFrom('browser_sessions').select('id').where('pool_id', '=', row.id).where('deleted_at', 'is', null).execute();
    await Promise.all(live.map((s) => this.endSession(s.id, 'pool_deleted')));
    await this.ctx.db.deleteFrom('browser_pools').where('id', '=', row.id).execute();
    this.ctx.changes.delete(row.org_id, 'pool', row.id, row.project_id);
  }

  /** Engine start: resume the pools this node runs. */
  async resume(): Promise<void> {
    const rows = await this.ctx.db.selectFrom('browser_pools').selectAll().where('node_id', '=', this.sessions.nodeId).execute();
    for (const row of rows) this.run(row);
  }

  /**
   * Pools this node fills whose row now names another node (it adopted them while this node's
   * lease was lost) or is gone: stop filling them here. Their browsers' rows were ended with
   * the lost node's sessions; the node's reaper ends the browsers.
   */
  async stopAdoptedElsewhere(): Promise<void> {
    if (this.runtimes.size === 0) return;
    const ids = [...this.runtimes.keys()];
    const rows = await this.ctx.db.selectFrom('browser_pools').select(['id', 'node_id']).where('id', 'in', ids).execute();
    const mine = new Set(rows.filter((r) => r.node_id === this.sessions.nodeId).map((r) => r.id));
    for (const id of ids) {
      if (mine.has(id)) continue;
      void this.runtimes.get(id)?.stop();
      this.runtimes.delete(id);
      this.configs.delete(id);
    }
  }

  /** Engine stop: no more launches, waiting acquirers get 204; the session manager ends the browsers. */
  stop(): void {
    for (const rt of this.runtimes.values()) void rt.stop();
    this.runtimes.clear();
  }
}
