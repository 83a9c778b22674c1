/**
 * `POST /browsers` from the body to the answer, in one place. A create makes the session's scope
 * (runtime/session/session-scope.ts) first: it holds the create's one deadline (the configured
 * time, or the client going away) and owns, in the order they are taken, everything the create
 * takes — the proxy forwarder and profile binding of its plan, a claimed standby browser, then
 * (through the runtime) the session's disk, directories, cgroups, jail, display and browser. A
 * create that fails or is aborted closes that scope; ending the session closes the same scope.
 *
 * Steps: plan (session-create.ts) → the jail (session-jail-choice.ts) → a standby browser when
 * one fits (standby-shape.ts) → the row under the limits lock (session-rows.ts) → adopt the
 * standby or start a cold runtime → the first tab, location, start listeners, start_url → answer.
 */
import path from 'node:path';
import type { EngineContext } from '../../context.js';
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { assertDiskRoom } from '../disk-reserve.js';
import { newId } from '../ids.js';
import { SessionScope } from '../../runtime/session/session-scope.js';
import type { RunningSession, RuntimeAdoption, RuntimeProfile, RuntimeSpec, SessionJailConfig } from '../../runtime/session/running-session.js';
import type { ProfileBinding } from './session-hooks.js';
import type { BoundedListeners } from '../../runtime/session/bounded-listeners.js';
import { serviceLogSink } from '../../runtime/service-logs.js';
import { watchesPageLoads } from '../../runtime/telemetry/cdp-collector.js';
import { planCreate, type CreateBody, type CreatePlan } from './session-create.js';
import { stealthUserAgent } from './stealth-user-agent.js';
import { jailStatus } from '../../runtime/sandbox/jail-status.js';
import { jailFor } from './session-jail-choice.js';
import { applyLocation } from './session-location.js';
import type { SessionDto, SessionRow } from './session-record.js';
import type { SessionRows } from './session-rows.js';
import type { RunningSessions } from './running-sessions.js';
import type { StandbyBrowsers, StandbyClaim } from './standby-browsers.js';
import { standbyShapeOf, type StandbyShape } from './standby-shape.js';
import { normalizeTelemetry } from './session-options.js';
import type { SessionServices, CreateInternal } from './session-manager.js';

/** The most a launch outside a create (crash restart, extension reload) may take, as before the one deadline. */
const RESTART_LAUNCH_MS = 30_000;
/** A standby browser nobody claimed for this long is replaced by a fresh one. */
const STANDBY_RECYCLE_SECONDS = 3600;

/** A create whose client went away: nothing is left of it (the row ends as `create_aborted`). */
const clientGoneError = () => new DomainError(400, 'request_aborted', 'the client closed the request before the browser session was created');

/** What the pipeline needs of the session manager that runs it. */
export interface CreateHost {
  readonly stopping: boolean;
  readonly rows: SessionRows;
  readonly running: RunningSessions;
  readonly standby: StandbyBrowsers;
  readonly startListeners: BoundedListeners<RunningSession>;
  /** Ends a running session for `reason` and records it (closes its scope). */
  end(rt: RunningSession, reason: string): Promise<void>;
  /** What a session's runtime reports back once it is a tenant's session. */
  reportsOf(id: string, rt: () => RunningSession): Pick<RuntimeAdoption, 'onSelfEnd' | 'onBrowserChanged'>;
  /** The browser executable, or undefined when none was found. */
  chromium(): string | undefined;
}

/** One create in flight: its scope (and deadline), what the client asked for, and what serves it. */
interface Create {
  auth: AuthContext;
  scope: SessionScope;
  /** The create's deadline as the scope holds it (to tell its running out from a step's own failure). */
  deadline: AbortSignal;
  clientGone?: AbortSignal;
  plan: CreatePlan;
  row: SessionRow;
  jail?: SessionJailConfig;
  /** A claimed standby browser; `adopted` once it is this session (no longer given back). */
  standby?: { rt: RunningSession; adopted: boolean; from: StandbyClaim<RunningSession>['from'] };
}

export class CreatePipeline {
  constructor(
    private readonly ctx: EngineContext,
    private readonly nodeId: string,
    private readonly services: SessionServices,
    private readonly host: CreateHost,
  ) {}

  private get sessionsDir(): string {
    return path.join(this.ctx.config.dataDir, 'sessions');
  }

  private scopeOf(id: string, deadline: AbortSignal): SessionScope {
    return new SessionScope({ id, deadline, log: (msg) => this.ctx.log.warn({ session: id }, msg) });
  }

  async create(auth: AuthContext, body: CreateBody, internal: CreateInternal): Promise<SessionDto> {
    if (this.host.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    // A session's filesystem grows into the data dir's: none starts on a data dir below its reserve.
    await assertDiskRoom(this.ctx.config, 'creating a browser session');
    const executable = this.host.chromium();
    if (!executable)
      throw new DomainError(503, 'browser_unavailable', 'no Chromium, Chrome or Edge was found on this engine (set --chromium or BROWSERDECK_CHROMIUM)');
    // One deadline for the whole create: the client going away, or the configured time running out.
    const clientGone = internal.clientGone;
    const timeout = AbortSignal.timeout(this.ctx.config.createDeadlineMs);
    const deadline = clientGone ? AbortSignal.any([clientGone, timeout]) : timeout;
    const scope = this.scopeOf(newId(), deadline);
    let c: Create;
    try {
      c = await this.admit(auth, body, internal, scope, deadline);
    } catch (err) {
      // Nothing runs yet: what the plan took (forwarder, profile, a claimed standby) is released.
      await scope.close('create_failed');
      throw err;
    }
    const rt = c.standby ? await this.adoptStandby(c.standby, c) : await this.startCold(c, executable);
    const dto = await this.finish(rt, c);
    scope.createDone();
    return dto;
  }

  /** Plan, jail, a standby browser if one fits, and the row under the limits lock. */
  private async admit(auth: AuthContext, body: CreateBody, internal: CreateInternal, scope: SessionScope, deadline: AbortSignal): Promise<Create> {
    // Decided once: how the proxy forwarder is reached, whether a standby fits, what the jail allows.
    const { bwrap } = await jailStatus(this.ctx.config);
    const plan = await planCreate(auth, body, scope, { ...this.services, region: this.ctx.config.region, jailed: !!bwrap });
    if (internal.clientGone?.aborted) throw clientGoneError();
    const jail = jailFor(bwrap, this.ctx, {
      egress: plan.proxy?.egress,
      chromePolicy: plan.options.chrome_policy,
      caCertificates: plan.proxy?.caCertificates,
      allowedHosts: plan.options.network?.allowed_hosts,
    });
    // A standby browser serves the create when everything it asks for applies to a running browser.
    const fit = internal.pool ? undefined : standbyShapeOf(plan, !!bwrap);
    const standby = fit && 'shape' in fit ? await this.claim(scope, fit.shape) : undefined;
    // Waiting for a standby launch under way: the client may have gone, the engine may be stopping (the scope gives it back).
    if (internal.clientGone?.aborted) throw clientGoneError();
    if (this.host.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    const row = this.rowOf(standby?.rt.id ?? scope.id, auth, plan, internal, standby?.rt);
    await this.host.rows.insert(auth, row, internal.skipLimits);
    return { auth, scope, deadline, clientGone: internal.clientGone, plan, row, jail, standby };
  }

  /**
   * Takes a standby browser of `shape`: a ready one, or the one a standby launch under way is
   * about to make (waited for: it is nearer than a launch of our own). Undefined when there is
   * neither or that launch failed (the create launches cold). Given back if the create fails
   * before adopting it.
   */
  private async claim(scope: SessionScope, shape: StandbyShape): Promise<Create['standby']> {
    const got = this.host.standby.take(shape);
    if (!got) return undefined;
    const rt = got.from === 'ready' ? got.ready : await got.launching;
    if (!rt) return undefined;
    const claimed = { rt, adopted: false, from: got.from };
    scope.defer('standby claim', () => {
      if (!claimed.adopted) this.host.standby.giveBack(shape, rt, got.from);
    });
    return claimed;
  }

  /** Ends a create that failed once its session runs (its scope closes with it) and says why. */
  private async fail(rt: RunningSession, c: Create, err: unknown, what: string): Promise<never> {
    await this.host.end(rt, c.clientGone?.aborted ? 'create_aborted' : 'launch_failed');
    if (c.clientGone?.aborted) throw clientGoneError();
    if (err instanceof DomainError) throw err;
    // The deadline ran out between two steps (the step itself says what it waited for): the same answer as a slow launch.
    const why = err === c.deadline.reason ? 'Chromium did not report its DevTools address in time' : (err as Error).message;
    throw new DomainError(503, 'browser_launch_failed', `the browser could not be ${what}: ${why}`);
  }

  /**
   * A create served by a standby browser (its row is inserted): the browser becomes this session
   * and gets its proxy and viewport; `finish` does the rest, as for a cold launch. The create's
   * scope closes with the standby's own (made when it launched), as one of its steps.
   */
  private async adoptStandby(claimed: NonNullable<Create['standby']>, c: Create): Promise<RunningSession> {
    const { rt } = claimed;
    const { plan } = c;
    rt.adopt({
      orgId: c.auth.orgId,
      projectId: c.auth.projectId,
      options: plan.options,
      timeoutSeconds: plan.timeoutSeconds,
      telemetry: plan.telemetry,
      ...this.host.reportsOf(rt.id, () => rt),
    });
    claimed.adopted = true;
    rt.scope.defer('create', () => c.scope.close(rt.endedReason));
    this.host.running.add(rt);
    try {
      // Before anything of the tenant's runs in it: the start URL opens after this.
      if (plan.options.network?.allowed_hosts) rt.setAllowedHosts(plan.options.network.allowed_hosts);
      if (plan.proxy?.egress) await rt.useEgress(plan.proxy.egress);
      plan.proxy?.attach?.(rt);
      const v = plan.options.viewport;
      if (rt.headless && (v.width !== rt.viewport.width || v.height !== rt.viewport.height)) await rt.resizeViewport(v);
      else rt.viewport = v;
    } catch (err) {
      return this.fail(rt, c, err, 'prepared');
    }
    return rt;
  }

  /** The profile as the runtime uses it; a save dropped because the browser did not close cleanly is logged (those changes are lost). */
  private runtimeProfile(id: string, binding: ProfileBinding): RuntimeProfile {
    return {
      saveChanges: binding.saveChanges,
      restore: (dir) => binding.restore(dir),
      finish: (dir, o) => {
        if (binding.saveChanges && !o.save)
          this.ctx.log.warn({ session: id, profile: binding.profileId }, 'profile changes not saved: the browser did not close cleanly (or never started)');
        return binding.finish(dir, o);
      },
    };
  }

  /** A create no standby serves: a runtime of its own in the create's scope, started within its deadline. */
  private async startCold(c: Create, executable: string): Promise<RunningSession> {
    const { plan, auth, row } = c;
    const id = row.id;
    const binding = plan.profile;
    const extensions = this.services.extensions;
    const rt: RunningSession = this.services.newRuntime({
      ...(await this.specBase(id, c.scope, executable, plan.options.stealth)),
      orgId: auth.orgId,
      projectId: auth.projectId,
      options: plan.options,
      timeoutSeconds: plan.timeoutSeconds,
      telemetry: plan.telemetry,
      extraArgs: plan.extraArgs,
      jail: c.jail,
      // The start page's own load, requests and console lines are telemetry too: launch on
      // about:blank and open start_url once the collector watches the tab (see finish).
      deferStartUrl: !!plan.options.start_url && watchesPageLoads(plan.telemetry.browser),
      ...(binding ? { profile: this.runtimeProfile(id, binding) } : {}),
      ...(plan.extensions.length ? { unpackExtensions: (dir) => extensions.unpackInto(plan.extensions, dir) } : {}),
      ...this.host.reportsOf(id, () => rt),
    });
    plan.proxy?.attach?.(rt);
    this.host.running.add(rt);
    try {
      const b = await rt.start();
      await this.host.rows.setPids(id, b, rt.xvfbPid ?? null);
    } catch (err) {
      return this.fail(rt, c, err, 'started');
    }
    if (this.host.stopping) throw new DomainError(503, 'engine_stopping', 'the engine is stopping');
    return rt;
  }

  /** What every runtime is made with, standby or not. */
  private async specBase(id: string, scope: SessionScope, executable: string, stealth: boolean) {
    const spec = {
      id,
      scope,
      sessionDir: path.join(this.sessionsDir, id),
      executable,
      env: this.ctx.config.env,
      userAgent: stealth ? await stealthUserAgent(executable) : undefined,
      now: () => this.ctx.clock.now().getTime(),
      launchDeadlineMs: Math.min(RESTART_LAUNCH_MS, this.ctx.config.createDeadlineMs),
      serviceLog: serviceLogSink(this.services.serviceLogs, id),
      log: this.ctx.log,
      freezeIdleMs: this.ctx.config.freezeIdleSeconds * this.ctx.config.sessionSecondMs,
      secondMs: this.ctx.config.sessionSecondMs,
      timers: this.ctx.config.sessionTimers,
    } satisfies Partial<RuntimeSpec>;
    // Supervisor log rings end with the session.
    scope.defer('service logs', () => this.services.serviceLogs.endSession(id));
    return spec;
  }

  /**
   * The end of every create once its browser runs (cold or standby): the first tab, location, the
   * start listeners, start_url. The create is an API call in flight, so the jail stays thawed
   * until it answers however long the first navigation takes. A client gone by then ends it.
   */
  private async finish(rt: RunningSession, c: Create): Promise<SessionDto> {
    const { plan } = c;
    const thawed = rt.holdThawed();
    try {
      if (plan.options.start_url && watchesPageLoads(plan.telemetry.browser)) await rt.prepareFirstTab();
      await applyLocation(rt, plan.options.location).catch((err) => this.ctx.log.warn({ err }, 'location overrides not applied'));
      await this.host.startListeners.run(rt, c.scope.createSignal);
      await rt.openStartUrl();
    } finally {
      thawed();
    }
    if (c.clientGone?.aborted) {
      await this.host.end(rt, 'create_aborted');
      throw clientGoneError();
    }
    this.ctx.changes.upsert(c.auth.orgId, 'session', rt.id, c.auth.projectId);
    return this.host.rows.dto(c.row, rt);
  }

  /** One standby browser: a session runtime with its own id, scope, directories and jail, and no owner yet. */
  async launchStandby(shape: StandbyShape): Promise<RunningSession> {
    const executable = this.host.chromium();
    if (!executable) throw new Error('no Chromium, Chrome or Edge was found on this engine');
    const id = newId();
    const scope = this.scopeOf(id, AbortSignal.timeout(this.ctx.config.createDeadlineMs));
    const rt: RunningSession = this.services.newRuntime({
      ...(await this.specBase(id, scope, executable, shape.stealth)),
      orgId: '',
      projectId: '',
      options: { headless: shape.headless, stealth: shape.stealth, viewport: shape.viewport, kiosk_mode: false, gpu: false },
      timeoutSeconds: STANDBY_RECYCLE_SECONDS,
      telemetry: normalizeTelemetry(undefined),
      extraArgs: [],
      jail: jailFor((await jailStatus(this.ctx.config)).bwrap, this.ctx),
      // Unclaimed and crashed for good, or recycled: the standby launches a fresh one.
      onSelfEnd: (reason) => this.host.standby.lost(rt, `standby_${reason}`),
      onBrowserChanged: () => {},
    });
    try {
      await rt.start();
    } catch (err) {
      await rt.end('launch_failed');
      throw err;
    }
    scope.createDone();
    return rt;
  }

  private rowOf(id: string, auth: AuthContext, plan: CreatePlan, internal: CreateInternal, standby?: RunningSession): SessionRow {
    return {
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
      marker: path.join(this.sessionsDir, id),
      created_at: this.ctx.clock.now().toISOString(),
      deleted_at: null,
      ended_reason: null,
      ended_by: null,
      uptime_ms: null,
    };
  }
}
