/**
 * One running session: its directories, its (supervised) browser and optional Xvfb, its
 * inactivity timer and the services of operation features. This is the `SessionHandle` operation
 * features see. Everything it acquires is handed to its scope (session-scope.ts) as it is taken,
 * so ending it (closing that scope) releases everything, in reverse, every time.
 */
import path from 'node:path';
import type { LimitReached, SessionDirs, SessionHandle, SessionTelemetryConfig, Viewport } from './session-handle.js';
import type { RunningSession, RuntimeAdoption, RuntimeSpec } from './running-session.js';
import { BrowserSupervisor } from '../chromium/browser-supervisor.js';
import type { LaunchedBrowser } from '../chromium/launch-chromium.js';
import type { XvfbServer } from '../chromium/xvfb.js';
import { killMarkedGroups } from '../chromium/process-group.js';
import { sizeAllWindows } from '../chromium/headless-windows.js';
import { SessionListeners } from './session-listeners.js';
import type { SessionScope } from './session-scope.js';
import { SessionJail } from '../sandbox/session-jail.js';
import { jailUsersOn } from '../sandbox/jail-user.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { LocalForwarder } from '../proxy-forwarder/local-forwarder.js';
import { createFreezer, type JailFreezer } from './jail-freezer.js';
import type { JailGroups } from '../sandbox/jail-start.js';
import { IdleFreeze } from './idle-freeze.js';
import { claimUnjailedUser, makeSessionFiles, sessionDirs, UNTIL_DONE, type SessionDiskSetup } from './session-filesystem.js';
import type { StartProcess } from '../chromium/started-process.js';

import { SessionCgroups, memoryOf } from './session-cgroups.js';
import { SessionActivity } from './session-activity.js';
import { SessionBrowserLaunch } from './session-browser-launch.js';
import { BrowserReloads } from './browser-reloads.js';
import { openStartUrl, prepareFirstTab } from './session-start-url.js';

/** What the engine lends each session: its disks (session-filesystem.ts) and who forks its browser (host-commands.ts). */
export interface RuntimeHost extends SessionDiskSetup {
  start?: StartProcess;
}

export class SessionRuntime implements RunningSession {
  readonly id: string;
  /** Set once more when a standby browser is claimed (adopt). */
  orgId: string;
  projectId: string;
  readonly headless: boolean;
  readonly dirs: SessionDirs;
  startedAt: number;
  viewport: Viewport;
  telemetry: SessionTelemetryConfig;
  timeoutSeconds: number;
  display?: string;
  /** Owns everything the session holds (made by its create, which also closes it when it fails). */
  readonly scope: SessionScope;
  private readonly abort = new AbortController();
  private readonly supervisor: BrowserSupervisor;
  private readonly launcher: SessionBrowserLaunch;
  private readonly activity: SessionActivity;
  private readonly cgroups: SessionCgroups;
  private xvfb?: XvfbServer;
  private readonly listeners: SessionListeners;
  private ending?: Promise<void>;
  private starting?: Promise<LaunchedBrowser>;
  endedReason?: string;
  /** A deferred `start_url` not opened yet: launches until then start on about:blank. */
  private pendingStartUrl?: string;
  /** Restarts on purpose (extensions, profile saves), one at a time; it holds the extensions every launch loads. */
  private readonly reloads: BrowserReloads;
  /** Jailed: the host side of the session's jail (sockets, egress proxy, launches). */
  private readonly jail?: SessionJail;
  /** Idle sessions are frozen (spec.freezeIdleMs). */
  private readonly freezer?: JailFreezer;
  /** How many launches ran: the first is part of the create and runs within its deadline. */
  private launches = 0;
  /** Whether the browser closed cleanly at the end (Browser.close): only then is its profile saved. */
  private cleanClose = false;

  constructor(
    private spec: RuntimeSpec,
    private readonly host?: RuntimeHost,
  ) {
    this.id = spec.id;
    this.orgId = spec.orgId;
    this.projectId = spec.projectId;
    this.headless = spec.options.headless;
    this.viewport = spec.options.viewport;
    this.telemetry = spec.telemetry;
    this.timeoutSeconds = spec.timeoutSeconds;
    this.dirs = sessionDirs(spec.sessionDir);
    this.scope = spec.scope;
    this.scope.attach(this);
    this.listeners = new SessionListeners(spec.log);
    if (spec.deferStartUrl) this.pendingStartUrl = spec.options.start_url;
    if (spec.jail) this.jail = new SessionJail(spec.jail, spec.sessionDir, this.dirs, (line) => spec.serviceLog?.('session', `${line}\n`));
    this.startedAt = spec.now();
    this.cgroups = new SessionCgroups(spec.id, (line) => this.spec.serviceLog?.('session', line));
    this.launcher = new SessionBrowserLaunch(this.scope, () => this.viewport, host?.start);
    this.supervisor = new BrowserSupervisor({
      launch: () => this.launch(),
      now: spec.now,
      onRestart: (b) => {
        this.spec.onBrowserChanged(b);
        this.listeners.browserRestarted();
      },
      onGiveUp: (reason) => this.spec.onSelfEnd(`browser_crashed: ${reason}`),
    });
    this.reloads = new BrowserReloads(this.supervisor, this);
    let idle: IdleFreeze | undefined;
    if (spec.freezeIdleMs && spec.freezeIdleMs > 0) {
      this.freezer = createFreezer(spec.id, () => this.supervisor.current?.pid);
      if (this.freezer.method !== 'none') idle = new IdleFreeze(this.freezer, spec.freezeIdleMs);
    }
    this.activity = new SessionActivity(
      idle,
      // In whole seconds, unless a test engine shortened its second (config.sessionSecondMs).
      () => (this.timeoutSeconds * (this.spec.secondMs ?? 1000)) / 1000,
      () => this.spec.onSelfEnd('timeout'),
      spec.timers,
    );
  }

  /** Whether the jail is frozen right now (idle; thawed by the next client or API call). */
  get frozen(): boolean {
    return this.activity.frozen;
  }

  /** Whether a profile is restored into the browser and saved back at its end. */
  get hasProfile(): boolean {
    return !!this.spec.profile;
  }

  /**
   * A standby browser becomes a tenant's session: owner, options, clocks and callbacks are the
   * claiming create's from now on (crash restarts launch with them); id, dirs and jail stay.
   */
  adopt(a: RuntimeAdoption): void {
    this.spec = { ...this.spec, ...a };
    this.orgId = a.orgId;
    this.projectId = a.projectId;
    this.telemetry = a.telemetry;
    this.timeoutSeconds = a.timeoutSeconds;
    this.pendingStartUrl = a.options.start_url;
    // A standby browser ran with its shape's memory; from now on the session's.
    this.cgroups.setMemory(memoryOf(a.options));
    this.startedAt = this.spec.now();
    this.touch();
  }

  /** Jailed: the browser's traffic leaves through `forwarder` from now on (a claimed standby's proxy). */
  useEgress(forwarder: LocalForwarder): Promise<void> {
    if (!this.jail) throw new Error('an unjailed browser cannot switch its egress');
    return this.jail.useEgress(forwarder);
  }

  /** The egress allowlist (`network.allowed_hosts`; null: none), enforced where the jail's traffic leaves (its only way out). */
  setAllowedHosts(entries: readonly string[] | null): void {
    if (!this.jail) throw new Error('an unjailed browser has no egress to restrict');
    this.jail.setAllowedHosts(entries);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get ended(): boolean {
    return this.abort.signal.aborted;
  }

  get browser(): LaunchedBrowser | undefined {
    return this.supervisor.current;
  }

  /** The launch viewport: the size of a headful session's X screen. */
  get screen(): Viewport {
    return this.spec.options.viewport;
  }

  get xvfbPid(): number | undefined {
    return this.xvfb?.pid;
  }

  /** Whether the browser runs in the browser jail. */
  get jailed(): boolean {
    return !!this.jail;
  }

  get restarts(): number {
    return this.supervisor.restarts;
  }

  /**
   * Makes the session's filesystem, cgroups and jail, restores its profile and extensions, starts
   * Xvfb (headful on Linux) and the browser within the create's deadline (its scope's fence), each
   * piece handed to the scope as it is taken: a start stopped half-way leaves them to `end()`.
   */
  start(): Promise<LaunchedBrowser> {
    this.starting ??= this.doStart();
    return this.starting;
  }

  private async doStart(): Promise<LaunchedBrowser> {
    const { scope, spec, dirs } = this;
    scope.fence();
    await makeSessionFiles(scope, { id: this.id, sessionDir: spec.sessionDir, dirs, disk: this.host, say: (line) => spec.serviceLog?.('session', line) });
    this.cgroups.open(scope, memoryOf(spec.options));
    const freezer = this.freezer;
    if (freezer) scope.defer('freezer', () => freezer.close(), UNTIL_DONE);
    await this.prepareJail();
    await this.restoreState();
    if (this.ended) throw new Error('session ended while starting');
    scope.fence();
    const display = { spec, dirs, viewport: this.viewport, jail: this.jail, groups: this.jailGroups, signal: scope.createSignal };
    this.xvfb = await this.launcher.startDisplay(scope, display);
    this.display = this.xvfb?.display;
    scope.fence();
    scope.defer(
      'browser',
      async () => {
        this.launcher.stop();
        this.cleanClose = await this.supervisor.stop({ saving: this.spec.profile?.saveChanges === true }).catch(() => false);
      },
      UNTIL_DONE,
    );
    const b = await this.supervisor.start();
    if (!this.ended) this.activity.started();
    return b;
  }

  /** The browser jail, or for an unjailed browser of a root engine a jail user of its own (session-filesystem.ts). */
  private async prepareJail(): Promise<void> {
    const jail = this.jail;
    if (jail) this.scope.defer('jail', () => jail.close(), UNTIL_DONE);
    // Anything still carrying the session dir in its command line (helpers, session processes) goes before the jail.
    this.scope.defer('leftover processes', async () => void (await killMarkedGroups(this.spec.sessionDir)), UNTIL_DONE);
    await jail?.prepare();
    if (!jail && jailUsersOn()) await claimUnjailedUser(this.scope, this.spec.sessionDir, this.dirs.root);
  }

  /** The profile the browser starts from (saved back after a clean close at the end), and its extensions unpacked. */
  private async restoreState(): Promise<void> {
    const { profile, unpackExtensions } = this.spec;
    if (profile) {
      // Saved (when save_changes) only after a clean Browser.close: a torn copy is never saved.
      this.scope.defer('profile', () => profile.finish(this.dirs.userData, { save: this.cleanClose }), UNTIL_DONE);
      await profile.restore(this.dirs.userData);
    }
    // Each session unpacks its own copy; crash restarts and reloads keep loading them.
    if (unpackExtensions) this.reloads.extensionDirs = await unpackExtensions(this.extensionsDir);
  }

  /** What every jail of the session starts in: its memory and pids groups, or RLIMIT_NPROC (sandbox/jail-start.ts). */
  get jailGroups(): JailGroups {
    return this.cgroups.jailGroups;
  }

  onLimitReached(fn: (hit: LimitReached) => void): () => void {
    return this.cgroups.onLimitReached(fn);
  }

  /** The X socket dir when a jailed Xvfb runs (processes bind it to use DISPLAY). */
  get x11Socket(): string | undefined {
    return this.jail && this.display ? this.jail.x11Dir : undefined;
  }

  private launch(): Promise<LaunchedBrowser> {
    const groups = this.jailGroups;
    return this.launcher.launch({
      spec: this.spec,
      dirs: this.dirs,
      viewport: this.viewport,
      startUrlPending: !!this.pendingStartUrl,
      extensionDirs: this.reloads.extensionDirs,
      extensionsDir: this.extensionsDir,
      jail: this.jail,
      display: this.display,
      groups: { procs: [this.freezer?.procsFile, ...groups.procs], nproc: groups.nproc },
      // The first launch is the create's (its deadline); a restart gets a deadline of its own.
      signal: this.launches++ === 0 ? this.scope.createSignal : AbortSignal.timeout(this.spec.launchDeadlineMs),
    });
  }

  /** The first tab, before telemetry watches for a navigation the engine is about to make (session-start-url.ts). */
  async prepareFirstTab(): Promise<void> {
    if (!this.ended) await prepareFirstTab(this.supervisor.current);
  }

  /** Loads a deferred `start_url` in the first tab (session-start-url.ts); logged, never thrown. */
  async openStartUrl(): Promise<void> {
    const url = this.pendingStartUrl;
    this.pendingStartUrl = undefined;
    if (url && !this.ended) await openStartUrl(this.supervisor.current, url, (line) => this.spec.serviceLog?.('session', line));
  }

  /**
   * Applies a new viewport. Headless: every window's page area (and the emulated screen)
   * becomes the viewport. Headful: every window becomes the viewport's size (the X screen
   * bounds it), so pages are smaller by the browser UI, as on a desktop.
   */
  async resizeViewport(v: Viewport): Promise<void> {
    const b = await this.ready();
    if (this.headless) {
      this.viewport = v;
      await this.launcher.resize();
      return;
    }
    await sizeAllWindows(b.control, v);
    this.viewport = v;
  }

  /** Where this session's extensions are unpacked: its own directory, outside the session filesystem. */
  get extensionsDir(): string {
    return path.join(this.spec.sessionDir, 'extensions');
  }

  /** Adds unpacked extensions and restarts Chromium with all of them (browser-reloads.ts). */
  loadExtensions(dirs: string[]): Promise<void> {
    return this.reloads.loadExtensions(dirs);
  }

  /** Restarts Chromium and runs `fn` on its closed user-data-dir in between (saving it into a profile, §8). */
  restartWith(fn: (userDataDir: string) => Promise<void>): Promise<void> {
    return this.reloads.restartWith(() => fn(this.dirs.userData));
  }

  /**
   * Waits for a running browser (e.g. while it restarts after a crash). Rejects (404) once the
   * session ends: a waiter parked on a browser that gave up would hold its client open forever.
   */
  ready(): Promise<LaunchedBrowser> {
    const signal = this.abort.signal;
    const ended = () => new DomainError(404, 'session_ended', `browser session '${this.id}' has ended`);
    if (signal.aborted) return Promise.reject(ended());
    // Whoever waits for the browser is about to talk to it: a frozen jail wakes first.
    this.activity.wake();
    return new Promise((resolve, reject) => {
      const onEnd = () => reject(ended());
      signal.addEventListener('abort', onEnd, { once: true });
      void this.supervisor.ready().then((b) => {
        signal.removeEventListener('abort', onEnd);
        resolve(b);
      });
    });
  }

  browserCdpUrl(): string {
    const b = this.supervisor.current;
    if (!b) throw new Error(`session ${this.id} has no running browser`);
    return b.wsUrl;
  }

  touch(): void {
    this.activity.touch();
  }

  holdActive(): () => void {
    return this.activity.holdActive();
  }

  /** An API call in flight: the jail stays thawed until it is done; unlike `holdActive`, the timeout counts on. */
  holdThawed(): () => void {
    return this.activity.holdThawed();
  }

  /** Number of clients currently holding the session active. */
  get activeHolds(): number {
    return this.activity.activeHolds;
  }

  setTimeoutSeconds(t: number): void {
    this.timeoutSeconds = t;
    this.touch();
  }

  onEnd(fn: () => void | Promise<void>): void {
    this.scope.defer('session end hook', fn);
  }

  onBrowserRestart(fn: () => void): () => void {
    return this.listeners.onBrowserRestart(fn);
  }

  onUpdate(fn: (s: SessionHandle) => void | Promise<void>): () => void {
    return this.listeners.onUpdate(fn);
  }

  /** Resolves once every update listener has applied the update (session-listeners.ts). */
  notifyUpdate(): Promise<void> {
    return this.listeners.notifyUpdate(this);
  }

  uptimeMs(): number {
    return Math.max(0, this.spec.now() - this.startedAt);
  }

  /**
   * Ends the session: its signal, then its scope closes — features' services, the browser (its
   * profile saved after a clean close), Xvfb, leftovers, jail, cgroups, disk, dirs — newest first,
   * each bounded (a failing or hanging step is logged and the rest still run). Idempotent.
   */
  end(reason: string): Promise<void> {
    this.ending ??= (async () => {
      this.endedReason = reason;
      this.activity.stop();
      this.abort.abort(new Error(`session ended: ${reason}`));
      // A start still under way finishes (or fails) first, so nothing it creates escapes cleanup.
      await this.starting?.catch(() => {});
      await this.scope.close(reason);
    })();
    return this.ending;
  }
}
