/**
 * The session manager: the one service the API and the other features call for browser
 * sessions. It wires the parts — the create pipeline (session-create-pipeline.ts), the rows and
 * their wire form (session-rows.ts), the running sessions and who may reach them
 * (running-sessions.ts), standby browsers (standby-browsers.ts) — answers the `SessionRegistry`
 * contract for operation features, and ends sessions: one at a time, all at the engine's stop.
 */
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { EngineContext } from '../../context.js';
import type { AuthContext, Credential } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { assertDiskRoom } from '../disk-reserve.js';
import type { SessionRegistry } from '../../runtime/session/session-handle.js';
import type { ResourceChanges } from '../../events/resource-changes.js';
import type { RunningSession, RuntimeAdoption, SessionRuntimeFactory } from '../../runtime/session/running-session.js';
import { SessionLimits } from './session-limits.js';
import { SessionJwt } from './session-jwt.js';
import type { ProfileRef, SessionDto, SessionRow } from './session-record.js';
import type { CreateBody } from './session-create.js';
import { stealthUserAgent } from './stealth-user-agent.js';
import type { ProfileService, ProxyHooks } from './session-hooks.js';
import { findChromium } from '../../runtime/chromium/find-chromium.js';
import type { ServiceLogs } from '../../runtime/service-logs.js';
import { BoundedListeners, type BoundedListener } from '../../runtime/session/bounded-listeners.js';
import type { ExtensionService } from '../extensions/extension-service.js';
import { StandbyBrowsers } from './standby-browsers.js';
import { cpuIdleSampler } from '../../runtime/cpu-idle.js';
import { SessionRows } from './session-rows.js';
import { RunningSessions } from './running-sessions.js';
import { CreatePipeline } from './session-create-pipeline.js';
import { endedByCaller, type EndCause } from './session-end-cause.js';

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

export class SessionManager implements SessionRegistry {
  readonly limits: SessionLimits;
  readonly rows: SessionRows;
  readonly running: RunningSessions;
  stopping = false;
  readonly startListeners: BoundedListeners<RunningSession>;
  /** Launched, jailed, idle browsers that creates claim (standby-browsers.ts). */
  readonly standby: StandbyBrowsers;
  private readonly pipeline: CreatePipeline;
  /** Background teardowns of ended sessions (endSoon); stopAll waits for them. */
  private readonly teardowns = new Set<Promise<void>>();
  /** The browser executable, once found (no filesystem probe per create). */
  private executable?: string;

  constructor(
    private readonly ctx: EngineContext,
    readonly jwt: SessionJwt,
    readonly nodeId: string,
    /** Tells the audit log who an upgrade was accepted for (http/upgrade-identity.ts; injected so domain stays below http/). */
    noteUpgrade: (req: IncomingMessage, who: Pick<Credential, 'orgId' | 'strategy' | 'userId' | 'email'>) => void,
    services: SessionServices,
  ) {
    this.limits = new SessionLimits(ctx.store.dialect, () => ctx.config.maxConcurrentSessions);
    this.rows = new SessionRows(ctx, jwt, this.limits, services.profiles);
    this.running = new RunningSessions(this.rows, jwt, ctx.apiKeys, noteUpgrade);
    this.startListeners = new BoundedListeners(ctx.log, 'session start');
    this.pipeline = new CreatePipeline(ctx, nodeId, services, this);
    this.standby = new StandbyBrowsers(
      { count: ctx.config.standby, memoryMb: ctx.config.standbyMemoryMb, launches: ctx.config.standbyLaunches, maxLaunches: ctx.config.standbyLaunchesMax },
      {
        launch: (shape) => this.launchStandby(shape),
        discard: (rt, reason) => rt.end(reason),
        onError: (err) => ctx.log.warn({ err }, 'standby browser launch failed'),
      },
      Date.now,
      cpuIdleSampler(),
    );
  }

  /** The engine's change bus (for session-update.ts). */
  get changes(): ResourceChanges {
    return this.ctx.changes;
  }

  get sessionsDir(): string {
    return path.join(this.ctx.config.dataDir, 'sessions');
  }

  chromium(): string | undefined {
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

  /**
   * A standby launch goes at once (a claim's refill starts with the claim: the standby keeps up
   * with back-to-back creates only so), never into the engine's stop or a full disk.
   */
  private async launchStandby(shape: Parameters<CreatePipeline['launchStandby']>[0]): Promise<RunningSession> {
    if (this.stopping) throw new Error('the engine is stopping');
    await assertDiskRoom(this.ctx.config, 'a standby browser');
    return this.pipeline.launchStandby(shape);
  }

  /** What a session's runtime reports back: it ended on its own (crashed for good, timed out), its browser was replaced. */
  reportsOf(id: string, rt: () => RunningSession): Pick<RuntimeAdoption, 'onSelfEnd' | 'onBrowserChanged'> {
    return {
      onSelfEnd: (reason) => void this.end(rt(), reason).catch((err) => this.ctx.log.error({ err }, 'ending session failed')),
      onBrowserChanged: (b) => void this.rows.setPids(id, b).catch(() => {}),
    };
  }

  /** The running sessions of this node (engine-internal). */
  all(): RunningSession[] {
    return this.running.all();
  }

  create(auth: AuthContext, body: CreateBody, internal: CreateInternal = {}): Promise<SessionDto> {
    return this.pipeline.create(auth, body, internal);
  }

  /**
   * The wire Session object, with a fresh JWT in its URLs. `profile` is the profile's current
   * metadata, read from the profiles table for running and ended sessions alike.
   */
  dto(row: SessionRow, rt = this.running.entry(row.id), profiles?: Map<string, ProfileRef>): Promise<SessionDto> {
    return this.rows.dto(row, rt, profiles);
  }

  /** Session objects for many rows, with one profiles query. */
  dtos(rows: SessionRow[]): Promise<SessionDto[]> {
    return this.rows.dtos(rows, (id) => this.running.entry(id));
  }

  /** The row of a session visible to this caller (by id, or by name among active sessions). */
  findRow(auth: AuthContext, idOrName: string, includeDeleted = true): Promise<SessionRow | undefined> {
    return this.rows.find(auth, idOrName, includeDeleted);
  }

  async getRow(auth: AuthContext, idOrName: string, includeDeleted = false): Promise<SessionRow> {
    const row = await this.findRow(auth, idOrName, includeDeleted);
    if (!row) throw DomainError.notFound('browser session', idOrName);
    this.running.entry(row.id)?.touch();
    return row;
  }

  // --- SessionRegistry -------------------------------------------------------------------

  require(auth: AuthContext, idOrName: string): Promise<RunningSession> {
    return this.running.require(auth, idOrName);
  }

  /**
   * A call on a session's routes (api/browsers.ts, every `/browsers/:id…` route) keeps the
   * session's jail thawed until it is done; undefined when the caller reaches no running session
   * by that id.
   */
  holdDuringCall(auth: AuthContext, id: string): (() => void) | undefined {
    return this.running.reachable(auth, id)?.holdThawed();
  }

  onSessionStart(fn: BoundedListener<RunningSession>): () => void {
    return this.startListeners.add(fn);
  }

  get(id: string): RunningSession | undefined {
    return this.running.get(id);
  }

  /**
   * The id of an ended session this caller can see, once its teardown is done (so what its scope
   * wrote at the end, its post-mortem, is there); undefined for a running session or none.
   */
  async endedId(auth: AuthContext, idOrName: string): Promise<string | undefined> {
    // A running session by id needs no row read (telemetry is polled).
    if (this.running.reachable(auth, idOrName)) return undefined;
    const row = await this.findRow(auth, idOrName);
    if (!row) return undefined;
    const rt = this.running.entry(row.id);
    // A session ending on its own (crash, timeout) has its row marked once its teardown is done.
    if (!row.deleted_at && !rt?.ended) return undefined;
    await rt?.end(row.ended_reason ?? 'deleted').catch(() => {});
    return row.id;
  }

  async exists(auth: AuthContext, idOrName: string): Promise<boolean> {
    return !!(await this.findRow(auth, idOrName));
  }

  requireUpgrade(req: IncomingMessage, url: URL, id: string): Promise<RunningSession> {
    return this.running.requireUpgrade(req, url, id);
  }

  // --- lifecycle -------------------------------------------------------------------------

  /**
   * Ends a session for a caller: `deleted` by the caller's key (or session JWT, invocation key),
   * unless `cause` says otherwise (an invocation's end ends its browsers).
   */
  async delete(auth: AuthContext, idOrName: string, cause: EndCause = { reason: 'deleted', by: endedByCaller(auth) }): Promise<void> {
    const row = await this.findRow(auth, idOrName, false);
    if (!row) throw DomainError.notFound('browser session', idOrName);
    const rt = this.running.entry(row.id);
    if (rt) await this.endSoon(rt, cause.reason, cause.by);
    else await this.rows.markEnded(row.id, { orgId: row.org_id, projectId: row.project_id }, cause.reason, null, cause.by);
  }

  /**
   * Ends a session for its client at once (DELETE): the session stops answering
   * and its row is ended now (name free, JWT refused); the teardown (its scope closing: services,
   * browser, jail, directories) runs in the background and the engine's stop waits for it. A
   * session whose profile is saved at its end is torn down first: the next create with that
   * profile must find the saved state.
   */
  async endSoon(rt: RunningSession, reason: string, endedBy?: string): Promise<void> {
    if (rt.hasProfile) return this.end(rt, reason, endedBy);
    const uptime = rt.uptimeMs();
    // The teardown starts on the next turn of the event loop, after this call's answer is
    // written: its synchronous part (aborting the session's work, signalling the browser and the
    // jail) would otherwise delay the answer the client is waiting for.
    const teardown = nextTurn()
      .then(() => rt.end(reason))
      .then(() => this.running.remove(rt.id))
      .catch((err) => this.ctx.log.error({ err }, 'ending session failed'));
    this.teardowns.add(teardown);
    void teardown.finally(() => this.teardowns.delete(teardown));
    await this.rows.markEnded(rt.id, { orgId: rt.orgId, projectId: rt.projectId }, reason, uptime, endedBy);
  }

  /** Ends a running session for `reason` (closes its scope) and records it (soft delete). Idempotent. */
  async end(rt: RunningSession, reason: string, endedBy?: string): Promise<void> {
    const uptime = rt.uptimeMs();
    await rt.end(reason);
    this.running.remove(rt.id);
    await this.rows.markEnded(rt.id, { orgId: rt.orgId, projectId: rt.projectId }, reason, uptime, endedBy);
  }

  /** Active sessions created within an invocation (for `/invocations/{id}/browsers`). */
  async listByInvocation(auth: AuthContext, invocationId: string): Promise<SessionDto[]> {
    return this.dtos(await this.rows.byInvocation(auth, invocationId));
  }

  /** Deletes every active session of an invocation (for the caller, or as `cause` says); returns how many. */
  async deleteByInvocation(auth: AuthContext, invocationId: string, cause?: EndCause): Promise<number> {
    const rows = await this.rows.byInvocation(auth, invocationId);
    await Promise.all(rows.map((r) => this.delete(auth, r.id, cause).catch(() => {})));
    return rows.length;
  }

  /** The ids of every browser an invocation used, ended ones included (its detail lists them). */
  browserIdsOfInvocation(orgId: string, projectId: string, invocationId: string): Promise<string[]> {
    return this.rows.idsByInvocation(orgId, projectId, invocationId);
  }

  /** Engine stop: no new sessions, every running one ends (no browser survives the engine). */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await this.standby.stop();
    await Promise.all(this.all().map((rt) => this.end(rt, 'engine_stopped').catch((err) => this.ctx.log.error({ err }, 'ending session at stop failed'))));
    await Promise.all(this.teardowns);
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
