/**
 * The session manager: creates sessions (limits taken in the same transaction as the row),
 * runs them (a `RunningSession` from the injected runtime factory), answers the `SessionRegistry` contract for operation features,
 * updates and ends them, and ends all of them when the engine stops.
 */
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { EngineContext } from '../../context.js';
import type { AuthContext, Credential } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { assertDiskRoom } from '../disk-reserve.js';
import { newId } from '../ids.js';
import type { SessionRegistry } from '../../runtime/session/session-handle.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import type { RunningSession, RuntimeAdoption, SessionJailConfig, SessionRuntimeFactory } from '../../runtime/session/running-session.js';
import { jailStatus } from '../../runtime/sandbox/jail-status.js';
import type { LocalForwarder } from '../../runtime/proxy-forwarder/local-forwarder.js';
import { SessionLimits } from './session-limits.js';
import { SessionJwt } from './session-jwt.js';
import { sessionDto, type ProfileRef, type SessionDto, type SessionRow } from './session-record.js';
import { applyLocation } from './session-location.js';
import { planCreate, type CreateBody } from './session-create.js';
import { stealthUserAgent } from './stealth-user-agent.js';
import type { ProfileService, ProxyHooks } from './session-hooks.js';
import { authenticateUpgrade } from './session-access.js';
import { findChromium } from '../../runtime/chromium/find-chromium.js';
import { serviceLogSink, type ServiceLogs } from '../../runtime/service-logs.js';
import { watchesPageLoads } from '../../runtime/telemetry/cdp-collector.js';
import { BoundedListeners, type BoundedListener } from '../../runtime/session/bounded-listeners.js';
import type { ExtensionService } from '../extensions/extension-service.js';
import { StandbyBrowsers } from './standby-browsers.js';
import { standbyShapeOf, type StandbyShape } from './standby-shape.js';
import { normalizeTelemetry } from './session-options.js';
import type { CreatePlan } from './session-create.js';
import { allowedHostsNeedJail } from './session-network.js';

const JWT_LIFETIME_MS = 24 * 3600 * 1000;
/** The most a launch outside a create (crash restart, extension reload) may take, as before the one deadline. */
const RESTART_LAUNCH_MS = 30_000;
/** A standby browser nobody claimed for this long is replaced by a fresh one. */
const STANDBY_RECYCLE_SECONDS = 3600;
/**
 * A standby launch waits until no create has been answered for STANDBY_QUIET_MS (the clients just
 * answered connect and navigate next), at most STANDBY_WAIT_MS (so a busy engine still refills).
 */
const STANDBY_QUIET_MS = 1000;
const STANDBY_WAIT_MS = 5000;

export interface CreateInternal {
  /** Set by the pools feature for browsers it launches. */
  pool?: { id: string; name?: string };
  /** Pool browsers were already counted as reservations. */
  skipLimits?: boolean;
  /**
   * Aborts when the client that asked went away (its connection closed before the answer):
   * the create stops and cleans up. Pool fills have none; the create's deadline still applies.
   */
  clientGone?: AbortSignal;
}

/** The services a session is made with (built before the manager in compose.ts). */
export interface SessionServices {
  profiles: ProfileService;
  proxies: ProxyHooks;
  extensions: ExtensionService;
  serviceLogs: ServiceLogs;
  /** Makes a session's runtime (compose.ts: the runtime's `SessionRuntime`); domain never constructs it. */
  newRuntime: SessionRuntimeFactory;
}

/** A create whose client went away: nothing is left of it (the row ends as `create_aborted`). */
const clientGoneError = () => new DomainError(400, 'request_aborted', 'the client closed the request before the browser session was created');

export class SessionManager implements SessionRegistry {
  readonly limits: SessionLimits;
  private readonly running = new Map<string, RunningSession>();
  private stopping = false;
  private readonly startListeners: BoundedListeners<RunningSession>;
  /** Launched, jailed, idle browsers that creates claim (standby-browsers.ts). */
  readonly standby: StandbyBrowsers;
  /** Background teardowns of ended sessions (endSoon); stopAll waits for them. */
  private readonly teardowns = new Set<Promise<void>>();
  /** The browser executable, once found (no filesystem probe per create). */
  private executable?: string;
  /** Creates being answered now, and the standby launches waiting for there to be none. */
  private createsInFlight = 0;
  private quietTimer?: NodeJS.Timeout;
  private readonly afterCreates = new Set<() => void>();

  constructor(
    private readonly ctx: EngineContext,
    readonly jwt: SessionJwt,
    readonly nodeId: string,
    /** Tells the audit log who an upgrade was accepted for (http/upgrade-identity.ts; injected so domain stays below http/). */
    private readonly noteUpgrade: (req: IncomingMessage, who: Pick<Credential, 'orgId' | 'strategy' | 'userId' | 'email'>) => void,
    private readonly services: SessionServices,
  ) {
    this.limits = new SessionLimits(ctx.store.dialect, () => ctx.config.maxConcurrentSessions);
    this.startListeners = new BoundedListeners(ctx.log, 'session start');
    this.standby = new StandbyBrowsers(
      { count: ctx.config.standby, memoryMb: ctx.config.standbyMemoryMb },
      {
        launch: (shape) => this.launchStandby(shape),
        discard: (rt, reason) => rt.end(reason),
        onError: (err) => ctx.log.warn({ err }, 'standby browser launch failed'),
      },
    );
  }

  /** The engine's change bus (for session-update.ts). */
  get changes(): ResourceChanges {
    return this.ctx.changes;
  }

  get sessionsDir(): string {
    return path.join(this.ctx.config.dataDir, 'sessions');
  }

  private now(): Date {
    return this.ctx.clock.now();
  }

  /**
   * How this session's browser is jailed (runtime/sandbox/browser-jail.ts), or undefined when
   * it runs on the host: no usable bubblewrap, or the operator chose `--insecure-no-jail`.
   * `caCertificates`: a TLS-intercepting proxy's CAs (`ca_bundle`), trusted through the jail's
   * managed policy — only there, so an unjailed engine refuses them like `chrome_policy`.
   * `allowedHosts`: `network.allowed_hosts`, enforced on the jail's egress, its only way out.
   */
  private async jailFor(
    egress: LocalForwarder | undefined,
    chromePolicy: Record<string, unknown> | undefined,
    caCertificates: string[] = [],
    allowedHosts?: string[],
  ): Promise<SessionJailConfig | undefined> {
    const hasPolicy = !!chromePolicy && Object.keys(chromePolicy).length > 0;
    const { bwrap } = await jailStatus(this.ctx.config);
    if (!bwrap) {
      if (caCertificates.length)
        throw DomainError.unprocessable(
          'a proxy with a ca_bundle needs the browser jail, which this engine runs without (no usable bubblewrap, or --insecure-no-jail): only a jailed browser can trust a CA of its own',
          'ca_bundle_unsupported',
        );
      if (hasPolicy)
        throw DomainError.unprocessable(
          'chrome_policy needs the browser jail, which this engine runs without (no usable bubblewrap, or --insecure-no-jail): Chromium reads policies only from system directories',
          'chrome_policy_unsupported',
        );
      if (allowedHosts) throw allowedHostsNeedJail();
      return undefined;
    }
    return {
      bwrap,
      hide: [this.ctx.config.dataDir],
      policy: this.ctx.tenantEgress,
      egress,
      chromePolicy: hasPolicy ? chromePolicy : undefined,
      ...(caCertificates.length ? { caCertificates } : {}),
      ...(allowedHosts ? { allowedHosts } : {}),
    };
  }

  private chromium(): string | undefined {
    this.executable ??= findChromium({ configured: this.ctx.config.chromiumPath, env: this.ctx.config.env });
    return this.executable;
  }

  /** After recovery (which removes session dirs no one owns): standby browsers start filling. */
  startStandby(): void {
    const executable = this.chromium();
    // The stealth user agent's `--version` runs now, not in the first stealth create.
    if (executable) void stealthUserAgent(executable);
    this.standby.fill();
  }

  /** A ready standby browser by id (engine-internal; nobody's session yet). */
  standbyRuntime(id: string): RunningSession | undefined {
    return this.standby.runtime(id);
  }

  /** What a session's runtime reports back: it ended on its own (crashed for good, timed out), its browser was replaced. */
  private reportsOf(id: string, rt: () => RunningSession): Pick<RuntimeAdoption, 'onSelfEnd' | 'onBrowserChanged'> {
    return {
      onSelfEnd: (reason) => void this.end(rt(), reason).catch((err) => this.ctx.log.error({ err }, 'ending session failed')),
      onBrowserChanged: (b) =>
        void this.ctx.db
          .updateTable('browser_sessions')
          .set({ pid: b.pid, pgid: b.pgid })
          .where('id', '=', id)
          .execute()
          .catch(() => {}),
    };
  }

  /**
   * Resolves once no create is being answered and none was for STANDBY_QUIET_MS (after
   * STANDBY_WAIT_MS at most). A standby launch (the refill a claim starts, a launch a cold create
   * asked for) takes a core or two for a second or more: beside a create, or the first connect
   * and navigation of a session just answered, it would make the clients that are waiting wait.
   */
  private createsAnswered(): Promise<void> {
    if (this.createsInFlight === 0 && !this.quietTimer) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(cap);
        this.afterCreates.delete(done);
        resolve();
      };
      const cap = setTimeout(done, STANDBY_WAIT_MS);
      this.afterCreates.add(done);
    });
  }

  /** A create has been answered (or failed): waiting standby launches go after a quiet STANDBY_QUIET_MS. */
  private createAnswered(): void {
    if (--this.createsInFlight > 0) return;
    clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.createsInFlight === 0) for (const done of [...this.afterCreates]) done();
    }, STANDBY_QUIET_MS);
    this.quietTimer.unref();
  }

  /** One standby browser: a session runtime with its own id, directories and jail, and no owner yet. */
  private async launchStandby(shape: StandbyShape): Promise<RunningSession> {
    await this.createsAnswered();
    if (this.stopping) throw new Error('the engine is stopping');
    await assertDiskRoom(this.ctx.config, 'a standby browser');
    const executable = this.chromium();
    if (!executable) throw new Error('no Chromium, Chrome or Edge was found on this engine');
    const id = newId();
    const jail = await this.jailFor(undefined, undefined);
    const rt: RunningSession = this.services.newRuntime({
      id,
      orgId: '',
      projectId: '',
      sessionDir: path.join(this.sessionsDir, id),
      options: { headless: shape.headless, stealth: shape.stealth, viewport: shape.viewport, kiosk_mode: false, gpu: false },
      timeoutSeconds: STANDBY_RECYCLE_SECONDS,
      telemetry: normalizeTelemetry(undefined),
      executable,
      env: this.ctx.config.env,
      userAgent: shape.stealth ? await stealthUserAgent(executable) : undefined,
      extraArgs: [],
      jail,
      now: () => this.now().getTime(),
      launchDeadlineMs: Math.min(RESTART_LAUNCH_MS, this.ctx.config.createDeadlineMs),
      serviceLog: serviceLogSink(this.services.serviceLogs, id),
      log: this.ctx.log,
      freezeIdleMs: this.ctx.config.freezeIdleSeconds * 1000,
      secondMs: this.ctx.config.sessionSecondMs,
      // Unclaimed and crashed for good, or recycled: the standby launches a fresh one.
      onSelfEnd: (reason) => this.standby.lost(rt, `standby_${reason}`),
      onBrowserChanged: () => {},
    });
    rt.onEnd(() => this.services.serviceLogs.endSession(id));
    try {
      await rt.start(AbortSignal.timeout(this.ctx.config.createDeadlineMs));
    } catch (err) {
      await rt.end('launch_failed');
      throw err;
    }
    return rt;
  }

  /**
   * A create served by a standby browser (its row is inserted): the browser becomes this session
   * and gets its proxy and viewport; `finishCreate` does the rest, as for a cold launch.
   */
  private async adoptStandby(rt: RunningSession, auth: AuthContext, plan: CreatePlan, clientGone?: AbortSignal): Promise<void> {
    const id = rt.id;
    rt.adopt({
      orgId: auth.orgId,
      projectId: auth.projectId,
      options: plan.options,
      timeoutSeconds: plan.timeoutSeconds,
      telemetry: plan.telemetry,
      ...this.reportsOf(id, () => rt),
    });
    this.running.set(id, rt);
    try {
      // Before anything of the tenant's runs in it: the start URL opens after this.
      if (plan.options.network?.allowed_hosts) rt.setAllowedHosts(plan.options.network.allowed_hosts);
      if (plan.proxy?.egress) await rt.useEgress(plan.proxy.egress);
      plan.proxy?.attach?.(rt);
      const v = plan.options.viewport;
      if (rt.headless && (v.width !== rt.viewport.width || v.height !== rt.viewport.height)) await rt.resizeViewport(v);
      else rt.viewport = v;
    } catch (err) {
      await this.end(rt, clientGone?.aborted ? 'create_aborted' : 'launch_failed');
      if (clientGone?.aborted) throw clientGoneError();
      throw err instanceof DomainError ? err : new DomainError(503, 'browser_launch_failed', `the browser could not be prepared: ${(err as Error).message}`);
    }
  }

  /**
   * The end of every create once its browser runs (cold or standby): the first tab, location, the
   * start listeners, start_url. The create is an API call in flight, so the jail stays thawed
   * until it answers however long the first navigation takes. A client gone by then ends it.
   */
  private async finishCreate(
    rt: RunningSession,
    auth: AuthContext,
    plan: CreatePlan,
    row: SessionRow,
    deadline: AbortSignal,
    clientGone?: AbortSignal,
  ): Promise<SessionDto> {
    const thawed = rt.holdThawed();
    try {
      if (plan.options.start_url && watchesPageLoads(plan.telemetry.browser)) await rt.prepareFirstTab();
      await applyLocation(rt, plan.options.location).catch((err) => this.ctx.log.warn({ err }, 'location overrides not applied'));
      await this.startListeners.run(rt, deadline);
      await rt.openStartUrl();
    } finally {
      thawed();
    }
    if (clientGone?.aborted) {
      await this.end(rt, 'create_aborted');
      throw clientGoneError();
    }
    this.ctx.changes.upsert(auth.orgId, 'session', rt.id, auth.projectId);
    return this.dto(row, rt);
  }

  /** The running sessions of this node (engine-internal). */
  all(): RunningSession[] {
    return [...this.running.values()];
  }

  async create(auth: AuthContext, body: CreateBody, internal: CreateInternal = {}): Promise<SessionDto> {
    this.createsInFlight++;
    try {
      return await this.createNow(auth, body, internal);
    } finally {
      this.createAnswered();
    }
  }

  private async createNow(auth: AuthContext, body: CreateBody, internal: CreateInternal): Promise<SessionDto> {
    if (this.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    // A session's filesystem grows into the data dir's: none starts on a data dir below its reserve.
    await assertDiskRoom(this.ctx.config, 'creating a browser session');
    const executable = this.chromium();
    if (!executable)
      throw new DomainError(503, 'browser_unavailable', 'no Chromium, Chrome or Edge was found on this engine (set --chromium or BROWSERDECK_CHROMIUM)');
    let id = newId();
    // One deadline for the whole create: the client going away, or the configured time running out.
    const clientGone = internal.clientGone;
    const deadline = clientGone
      ? AbortSignal.any([clientGone, AbortSignal.timeout(this.ctx.config.createDeadlineMs)])
      : AbortSignal.timeout(this.ctx.config.createDeadlineMs);
    const plan = await planCreate(auth, body, id, { ...this.services, region: this.ctx.config.region });
    let jail: SessionJailConfig | undefined;
    try {
      if (clientGone?.aborted) throw clientGoneError();
      jail = await this.jailFor(plan.proxy?.egress, plan.options.chrome_policy, plan.proxy?.caCertificates, plan.options.network?.allowed_hosts);
    } catch (err) {
      await plan.profile?.finish('', { save: false });
      await plan.proxy?.release?.();
      throw err;
    }
    // A standby browser serves the create when everything it asks for applies to a running browser.
    const fit = internal.pool ? undefined : standbyShapeOf(plan, !!jail);
    const standby = fit && 'shape' in fit ? this.standby.take(fit.shape) : undefined;
    if (standby) id = standby.id;
    const sessionDir = path.join(this.sessionsDir, id);
    const row: SessionRow = {
      id,
      org_id: auth.orgId,
      project_id: auth.projectId,
      name: plan.name,
      options: JSON.stringify(plan.options),
      tags: JSON.stringify(plan.tags),
      telemetry: JSON.stringify(plan.telemetry),
      timeout_seconds: plan.timeoutSeconds,
      profile_id: plan.profile?.profileId ?? null,
      proxy_id: plan.proxyId,
      pool_id: internal.pool?.id ?? null,
      pool_name: internal.pool?.name ?? null,
      invocation_id: plan.invocationId ?? auth.invocationId ?? null,
      node_id: this.nodeId,
      // A standby browser already runs: the one insert records it.
      pid: standby?.browser?.pid ?? null,
      pgid: standby?.browser?.pgid ?? null,
      xvfb_pid: standby?.xvfbPid ?? null,
      marker: sessionDir,
      created_at: this.now().toISOString(),
      deleted_at: null,
      ended_reason: null,
      uptime_ms: null,
    };
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await this.limits.lock(trx, auth.orgId);
        if (!internal.skipLimits) await this.limits.assertSlot(trx, auth.orgId, auth.projectId);
        if (plan.name) await this.assertNameFree(trx, auth, plan.name);
        await trx.insertInto('browser_sessions').values(row).execute();
      });
    } catch (err) {
      if (standby && fit && 'shape' in fit) this.standby.giveBack(fit.shape, standby);
      await plan.profile?.finish('', { save: false });
      await plan.proxy?.release?.();
      throw err;
    }
    if (standby) {
      await this.adoptStandby(standby, auth, plan, clientGone);
      return this.finishCreate(standby, auth, plan, row, deadline, clientGone);
    }
    const binding = plan.profile;
    const deferStartUrl = !!plan.options.start_url && watchesPageLoads(plan.telemetry.browser);
    const extensionHooks = this.services.extensions;
    const rt: RunningSession = this.services.newRuntime({
      id,
      orgId: auth.orgId,
      projectId: auth.projectId,
      sessionDir,
      options: plan.options,
      timeoutSeconds: plan.timeoutSeconds,
      telemetry: plan.telemetry,
      executable,
      env: this.ctx.config.env,
      userAgent: plan.options.stealth ? await stealthUserAgent(executable) : undefined,
      extraArgs: plan.extraArgs,
      jail,
      // The start page's own load, requests and console lines are telemetry too: launch on
      // about:blank and open start_url once the collector watches the tab (see below).
      deferStartUrl,
      prepare: async (dirs) => {
        await binding?.restore(dirs.userData);
        // Each session unpacks its own copy; crash restarts and reloads keep loading them.
        if (plan.extensions.length) rt.extensionDirs = await extensionHooks.unpackInto(plan.extensions, rt.extensionsDir);
      },
      now: () => this.now().getTime(),
      launchDeadlineMs: Math.min(RESTART_LAUNCH_MS, this.ctx.config.createDeadlineMs),
      serviceLog: serviceLogSink(this.services.serviceLogs, id),
      log: this.ctx.log,
      freezeIdleMs: this.ctx.config.freezeIdleSeconds * 1000,
      secondMs: this.ctx.config.sessionSecondMs,
      ...this.reportsOf(id, () => rt),
    });
    plan.proxy?.attach?.(rt);
    rt.onEnd(() => this.services.serviceLogs.endSession(id)); // supervisor log rings end with the session
    if (binding) {
      // Saved (when save_changes) only after a clean Browser.close: a torn copy is never saved.
      rt.saveProfile = (dirs, clean) => binding.finish(dirs.userData, { save: clean });
    }
    this.running.set(id, rt);
    try {
      const b = await rt.start(deadline);
      await this.ctx.db
        .updateTable('browser_sessions')
        .set({ pid: b.pid, pgid: b.pgid, xvfb_pid: rt.xvfbPid ?? null })
        .where('id', '=', id)
        .execute();
    } catch (err) {
      await this.end(rt, clientGone?.aborted ? 'create_aborted' : 'launch_failed');
      if (clientGone?.aborted) throw clientGoneError();
      if (err instanceof DomainError) throw err;
      // The deadline ran out between two steps (the step itself says what it waited for): the same answer as a slow launch.
      const why = err === deadline.reason ? 'Chromium did not report its DevTools address in time' : (err as Error).message;
      throw new DomainError(503, 'browser_launch_failed', `the browser could not be started: ${why}`);
    }
    if (this.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    return this.finishCreate(rt, auth, plan, row, deadline, clientGone);
  }

  private async assertNameFree(db: Pick<EngineContext['db'], 'selectFrom'>, auth: AuthContext, name: string, exceptId?: string): Promise<void> {
    let q = db
      .selectFrom('browser_sessions')
      .select('id')
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('name', '=', name)
      .where('deleted_at', 'is', null);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw DomainError.conflict(`a session named '${name}' is already active in this project`, 'session_name_taken');
  }

  /**
   * The wire Session object, with a fresh JWT in its URLs. `profile` is the profile's current
   * metadata, read from the profiles table for running and ended sessions alike.
   */
  async dto(row: SessionRow, rt = this.running.get(row.id), profiles?: Map<string, ProfileRef>): Promise<SessionDto> {
    const expires = new Date(this.now().getTime() + JWT_LIFETIME_MS);
    const jwt = await this.jwt.sign({ sessionId: row.id, orgId: row.org_id, projectId: row.project_id }, expires);
    const uptime = rt ? rt.uptimeMs() : this.now().getTime() - Date.parse(row.created_at);
    const profile = row.profile_id ? (profiles ?? (await this.profileRefs([row]))).get(row.profile_id) : undefined;
    return sessionDto(row, { publicUrl: this.ctx.publicUrl(), jwt, uptimeMs: uptime, viewport: rt?.viewport, profile });
  }

  /** Session objects for many rows, with one profiles query. */
  async dtos(rows: SessionRow[]): Promise<SessionDto[]> {
    const profiles = await this.profileRefs(rows);
    return Promise.all(rows.map((r) => this.dto(r, this.running.get(r.id), profiles)));
  }

  private async profileRefs(rows: SessionRow[]): Promise<Map<string, ProfileRef>> {
    const ids = rows.map((r) => r.profile_id).filter((id): id is string => !!id);
    if (ids.length === 0) return new Map();
    return this.services.profiles.dtos(ids);
  }

  /** The row of a session visible to this caller (by id, or by name among active sessions). */
  async findRow(auth: AuthContext, idOrName: string, includeDeleted = true): Promise<SessionRow | undefined> {
    const base = this.ctx.db.selectFrom('browser_sessions').selectAll().where('org_id', '=', auth.orgId).where('project_id', '=', auth.projectId);
    let row = await base.where('id', '=', idOrName).executeTakeFirst();
    if (!row) row = await base.where('name', '=', idOrName).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) return undefined;
    if (auth.sessionId && row.id !== auth.sessionId) return undefined;
    if (!includeDeleted && row.deleted_at) return undefined;
    return row;
  }

  async getRow(auth: AuthContext, idOrName: string, includeDeleted = false): Promise<SessionRow> {
    const row = await this.findRow(auth, idOrName, includeDeleted);
    if (!row) throw DomainError.notFound('browser session', idOrName);
    this.running.get(row.id)?.touch();
    return row;
  }

  // --- SessionRegistry -------------------------------------------------------------------

  /** The running session with this id when this caller may reach it (no lookup by name). */
  private reachable(auth: AuthContext, id: string): RunningSession | undefined {
    const rt = this.running.get(id);
    return rt && !rt.ended && rt.orgId === auth.orgId && rt.projectId === auth.projectId && (!auth.sessionId || auth.sessionId === rt.id) ? rt : undefined;
  }

  async require(auth: AuthContext, idOrName: string): Promise<RunningSession> {
    const direct = this.reachable(auth, idOrName);
    if (direct) {
      direct.touch();
      return direct;
    }
    const row = await this.findRow(auth, idOrName);
    if (!row) throw DomainError.notFound('browser session', idOrName);
    const rt = this.running.get(row.id);
    if (row.deleted_at || !rt || rt.ended)
      throw new DomainError(404, 'session_ended', `browser session '${idOrName}' has ended${row.ended_reason ? ` (${row.ended_reason})` : ''}`);
    rt.touch();
    return rt;
  }

  /**
   * A call on a session's routes (api/browsers.ts, every `/browsers/:id…` route) keeps the
   * session's jail thawed until it is done; undefined when the caller reaches no running session
   * by that id.
   */
  holdDuringCall(auth: AuthContext, id: string): (() => void) | undefined {
    return this.reachable(auth, id)?.holdThawed();
  }

  onSessionStart(fn: BoundedListener<RunningSession>): () => void {
    return this.startListeners.add(fn);
  }

  get(id: string): RunningSession | undefined {
    const rt = this.running.get(id);
    return rt && !rt.ended ? rt : undefined;
  }

  async exists(auth: AuthContext, idOrName: string): Promise<boolean> {
    return !!(await this.findRow(auth, idOrName));
  }

  /**
   * For WebSocket upgrades on `/browsers/{id}/…` (CDP, BiDi, live view, process attach): the
   * session's JWT or a bearer key of its org. The accepted credential goes to the audit log.
   */
  async requireUpgrade(req: IncomingMessage, url: URL, id: string): Promise<RunningSession> {
    const c = await authenticateUpgrade(req, url, id, this.jwt, this.ctx.apiKeys);
    this.noteUpgrade(req, { orgId: c.orgId, strategy: c.strategy, userId: c.userId, email: c.email });
    const rt = this.running.get(id);
    if (!rt || rt.ended || rt.orgId !== c.orgId || (c.projectId && rt.projectId !== c.projectId)) throw DomainError.notFound('browser session', id);
    rt.touch();
    return rt;
  }

  // --- lifecycle -------------------------------------------------------------------------

  async delete(auth: AuthContext, idOrName: string): Promise<void> {
    const row = await this.findRow(auth, idOrName, false);
    if (!row) throw DomainError.notFound('browser session', idOrName);
    const rt = this.running.get(row.id);
    if (rt) await this.endSoon(rt, 'deleted');
    else await this.markEnded(row.id, { orgId: row.org_id, projectId: row.project_id }, 'deleted', null);
  }

  /**
   * Ends a session for its client at once (DELETE): the session stops answering
   * and its row is ended now (name free, JWT refused); the teardown (end hooks, browser, jail,
   * directories) runs in the background and the engine's stop waits for it. A session whose
   * profile is saved at its end is torn down first: the next create with that profile must
   * find the saved state.
   */
  async endSoon(rt: RunningSession, reason: string): Promise<void> {
    if (rt.saveProfile) return this.end(rt, reason);
    const uptime = rt.uptimeMs();
    const teardown = rt
      .end(reason)
      .then(() => void this.running.delete(rt.id))
      .catch((err) => this.ctx.log.error({ err }, 'ending session failed'));
    this.teardowns.add(teardown);
    void teardown.finally(() => this.teardowns.delete(teardown));
    await this.markEnded(rt.id, { orgId: rt.orgId, projectId: rt.projectId }, reason, uptime);
  }

  /** Ends a running session for `reason` and records it (soft delete). Idempotent. */
  async end(rt: RunningSession, reason: string): Promise<void> {
    const uptime = rt.uptimeMs();
    await rt.end(reason, rt.saveProfile);
    this.running.delete(rt.id);
    await this.markEnded(rt.id, { orgId: rt.orgId, projectId: rt.projectId }, reason, uptime);
  }

  private async markEnded(id: string, owner: { orgId: string; projectId: string }, reason: string, uptimeMs: number | null): Promise<void> {
    const { numUpdatedRows } = await this.ctx.db
      .updateTable('browser_sessions')
      .set({ deleted_at: this.now().toISOString(), ended_reason: reason, uptime_ms: uptimeMs, pid: null, pgid: null, xvfb_pid: null })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (numUpdatedRows > 0n) this.ctx.changes.delete(owner.orgId, 'session', id, owner.projectId);
  }

  /** Active sessions created within an invocation (for `/invocations/{id}/browsers`). */
  async listByInvocation(auth: AuthContext, invocationId: string): Promise<SessionDto[]> {
    const rows = await this.ctx.db
      .selectFrom('browser_sessions')
      .selectAll()
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('invocation_id', '=', invocationId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'asc')
      .execute();
    return this.dtos(rows);
  }

  /** Deletes every active session of an invocation; returns how many. */
  async deleteByInvocation(auth: AuthContext, invocationId: string): Promise<number> {
    const rows = await this.ctx.db
      .selectFrom('browser_sessions')
      .select('id')
      .where('org_id', '=', auth.orgId)
      .where('project_id', '=', auth.projectId)
      .where('invocation_id', '=', invocationId)
      .where('deleted_at', 'is', null)
      .execute();
    await Promise.all(rows.map((r) => this.delete(auth, r.id).catch(() => {})));
    return rows.length;
  }

  /** Engine stop: no new sessions, every running one ends (no browser survives the engine). */
  async stopAll(): Promise<void> {
    this.stopping = true;
    // A standby launch still waiting for quiet gives up now instead of launching into the stop.
    clearTimeout(this.quietTimer);
    for (const done of [...this.afterCreates]) done();
    await this.standby.stop();
    await Promise.all(this.all().map((rt) => this.end(rt, 'engine_stopped').catch((err) => this.ctx.log.error({ err }, 'ending session at stop failed'))));
    await Promise.all(this.teardowns);
  }
}
