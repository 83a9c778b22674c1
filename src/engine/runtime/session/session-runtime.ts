/**
 * One running session: its directories, its (supervised) browser and optional Xvfb, its
 * inactivity timer and the cleanup registered by operation features. This is the
 * `SessionHandle` operation features see; ending it releases everything, every time.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { LimitReached, SessionDirs, SessionHandle, SessionTelemetryConfig, Viewport } from './session-handle.js';
import type { RunningSession, RuntimeAdoption, RuntimeSpec } from './running-session.js';
import { BrowserSupervisor } from '../chromium/browser-supervisor.js';
import { launchChromium, type LaunchedBrowser } from '../chromium/launch-chromium.js';
import type { CdpConnection } from '../chromium/cdp-connection.js';
import { chromiumArgs } from '../chromium/chromium-flags.js';
import { needsXvfb, startXvfb, type XvfbServer } from '../chromium/xvfb.js';
import { killMarkedGroups } from '../chromium/process-group.js';
import { HeadlessWindows, frameHint, sizeAllWindows } from '../chromium/headless-windows.js';
import { firstTab, navigateFirstTab } from '../chromium/first-tab-navigation.js';
import { BoundedListeners } from './bounded-listeners.js';
import { SessionJail } from '../sandbox/session-jail.js';
import { claimJailUser, ensureTraversable, jailUsersOn, ownTree, type ClaimedJailUser } from '../sandbox/jail-user.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { LocalForwarder } from '../proxy-forwarder/local-forwarder.js';
import { createFreezer, type JailFreezer } from './jail-freezer.js';
import { createMemoryGroup, memoryBytes, type MemoryGroup } from '../sandbox/memory-group.js';
import { createPidsGroup, nprocLimit, pidsLimits, type PidsGroup } from '../sandbox/pids-group.js';
import type { JailGroups } from '../sandbox/jail-start.js';
import { IdleFreeze } from './idle-freeze.js';
import { shortTmpLink } from './short-tmp-link.js';
import { removeTree } from '../session-fs/remove-tree.js';
import type { SessionDisk, SessionDisks } from './session-disks.js';
import { DiskFullWatch, type DiskFull } from './disk-full-watch.js';

const MAX_TMPDIR_FOR_SOCKET = 60;
/** How often a session's pids group is asked whether its limit refused a fork (one file read). */
const PIDS_CHECK_MS = 2_000;

/**
 * A session's memory when its options do not say (a standby browser: its shape's; rows from
 * before `memory`): Kernel's defaults, headless 1 GiB, headful 8 GiB (domain's session-region.ts).
 */
function memoryOf(o: { headless: boolean; memory?: string }): number {
  return memoryBytes(o.memory ?? (o.headless ? '1GiB' : '8GiB'));
}

export function sessionDirs(sessionDir: string): SessionDirs {
  const root = path.join(sessionDir, 'root');
  return { root, userData: path.join(sessionDir, 'user-data'), tmp: path.join(sessionDir, 'tmp'), downloads: path.join(root, 'downloads') };
}

/** What every session of an engine shares about its filesystem: its byte quota, and who hears of a full one. */
export interface SessionDiskSetup {
  disks: SessionDisks;
  /** The session filled its quota (once per filling; the runtime also writes its log line). */
  onFull?: (sessionId: string, f: DiskFull) => void;
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
  private readonly abort = new AbortController();
  private readonly supervisor: BrowserSupervisor;
  /** Headless only: keeps every window's page area at the viewport (per launched browser). */
  private windows?: HeadlessWindows;
  private xvfb?: XvfbServer;
  private holds = 0;
  private timer?: NodeJS.Timeout;
  private readonly endHooks: Array<() => void | Promise<void>> = [];
  private readonly restartListeners = new Set<() => void>();
  private readonly updateListeners: BoundedListeners<SessionHandle>;
  private ending?: Promise<void>;
  endedReason?: string;
  /** Set when the session's profile is written back at the end (profile save_changes). */
  saveProfile?: (dirs: SessionDirs, cleanClose: boolean) => Promise<void>;
  /** A deferred `start_url` not opened yet: launches until then start on about:blank. */
  private pendingStartUrl?: string;
  /** Unpacked extensions every launch (first, crash restarts, reloads) loads. */
  extensionDirs: string[] = [];
  /** Serializes extension reloads (each one restarts the browser). */
  private reloading: Promise<unknown> = Promise.resolve();
  /** Jailed: the host side of the session's jail (sockets, egress proxy, launches). */
  private readonly jail?: SessionJail;
  /** Idle sessions are frozen (spec.freezeIdleMs). */
  private readonly freezer?: JailFreezer;
  private readonly idle?: IdleFreeze;
  /** Where memory is enforced: the group every jail of the session starts in (made at start). */
  private memory?: MemoryGroup;
  /** Where a cgroup bounds its tasks: the session's pids group (made at start), watched for refused forks. */
  private pids?: PidsGroup;
  private pidsWatch?: NodeJS.Timeout;
  private readonly limitListeners = new Set<(hit: LimitReached) => void>();
  /** Where the session's filesystem has a byte quota: its own mounted disk, and the watch for a full one. */
  private disk?: SessionDisk;
  private diskWatch?: DiskFullWatch;

  constructor(
    private spec: RuntimeSpec,
    private readonly diskSetup?: SessionDiskSetup,
  ) {
    this.id = spec.id;
    this.orgId = spec.orgId;
    this.projectId = spec.projectId;
    this.headless = spec.options.headless;
    this.viewport = spec.options.viewport;
    this.telemetry = spec.telemetry;
    this.timeoutSeconds = spec.timeoutSeconds;
    this.dirs = sessionDirs(spec.sessionDir);
    this.updateListeners = new BoundedListeners(spec.log, 'session update');
    if (spec.deferStartUrl) this.pendingStartUrl = spec.options.start_url;
    if (spec.jail) this.jail = new SessionJail(spec.jail, spec.sessionDir, this.dirs, (line) => spec.serviceLog?.('session', `${line}\n`));
    this.startedAt = spec.now();
    this.supervisor = new BrowserSupervisor({
      launch: () => this.launch(),
      now: spec.now,
      onRestart: (b) => {
        this.spec.onBrowserChanged(b);
        for (const fn of this.restartListeners) fn();
      },
      onGiveUp: (reason) => this.spec.onSelfEnd(`browser_crashed: ${reason}`),
    });
    if (spec.freezeIdleMs && spec.freezeIdleMs > 0) {
      this.freezer = createFreezer(spec.id, () => this.supervisor.current?.pid);
      if (this.freezer.method !== 'none') this.idle = new IdleFreeze(this.freezer, spec.freezeIdleMs);
    }
  }

  /** Whether the jail is frozen right now (idle; thawed by the next client or API call). */
  get frozen(): boolean {
    return this.idle?.frozen ?? false;
  }

  /**
   * A standby browser becomes a tenant's session: its owner, options, clocks and callbacks are
   * the claiming create's from now on (crash restarts launch with them). Its id, directories and
   * jail were made for this moment and stay. The start URL is opened by `openStartUrl`.
   */
  adopt(a: RuntimeAdoption): void {
    this.spec = { ...this.spec, ...a };
    this.orgId = a.orgId;
    this.projectId = a.projectId;
    this.telemetry = a.telemetry;
    this.timeoutSeconds = a.timeoutSeconds;
    this.pendingStartUrl = a.options.start_url;
    // A standby browser ran with its shape's memory; from now on the session's.
    this.memory?.limit(memoryOf(a.options));
    this.startedAt = this.spec.now();
    this.touch();
  }

  /** Jailed: the browser's traffic leaves through `forwarder` from now on (a claimed standby's proxy). */
  useEgress(forwarder: LocalForwarder): Promise<void> {
    if (!this.jail) throw new Error('an unjailed browser cannot switch its egress');
    return this.jail.useEgress(forwarder);
  }

  /**
   * The session's egress allowlist (`network.allowed_hosts`; null: none), enforced where the
   * jail's traffic leaves (session-jail.ts). Only a jailed browser has no other way out.
   */
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

  private starting?: Promise<LaunchedBrowser>;
  /** The create's deadline while the first start runs: its launch (and each step before) stops when it aborts. */
  private startDeadline?: AbortSignal;
  /** The jail user of an unjailed session's processes (see doStart); released at the end. */
  private unjailedUser?: ClaimedJailUser;

  /**
   * Creates the directories, restores state, starts Xvfb (headful on Linux) and the browser,
   * within `deadline` (the create's: its time, or a client that went away). A start that stops
   * half-way leaves its pieces to `end()`, which the caller runs.
   */
  start(deadline?: AbortSignal): Promise<LaunchedBrowser> {
    this.starting ??= this.doStart(deadline);
    return this.starting;
  }

  private async doStart(deadline?: AbortSignal): Promise<LaunchedBrowser> {
    this.startDeadline = deadline;
    try {
      // First: everything below (root, profile, temp dir) lands on the session's own filesystem.
      await this.attachDisk();
      for (const d of [this.dirs.root, this.dirs.downloads, this.dirs.userData, this.dirs.tmp]) await fs.mkdir(d, { recursive: true, mode: 0o700 });
      this.memory = createMemoryGroup(this.id, memoryOf(this.spec.options));
      this.pids = createPidsGroup(this.id, this.memory?.method === 'cgroup-v2' ? this.memory.dir : undefined);
      this.watchPids();
      await this.jail?.prepare();
      // An unjailed browser (--insecure-no-jail) of a root engine: its processes and code still run
      // in bwrap where it exists, as a jail user of their own, which the session root records.
      if (!this.jail && jailUsersOn()) {
        this.unjailedUser = claimJailUser();
        const sessions = path.dirname(this.spec.sessionDir);
        await ensureTraversable(this.dirs.root, [this.spec.sessionDir, sessions, path.dirname(sessions)]);
        await fs.chmod(this.spec.sessionDir, 0o711);
        await ownTree(this.unjailedUser.user, this.dirs.root);
      }
      await this.spec.prepare?.(this.dirs);
      if (this.ended) throw new Error('session ended while starting');
      deadline?.throwIfAborted();
      if (needsXvfb(this.headless, this.spec.env)) {
        const size = { width: this.viewport.width, height: this.viewport.height };
        const onOutput = (c: string) => this.spec.serviceLog?.('display', c);
        this.xvfb = this.jail
          ? await this.jail.startXvfb(size, onOutput, deadline, this.jailGroups)
          : await startXvfb({ ...size, marker: this.spec.sessionDir, onOutput, signal: deadline });
        this.display = this.xvfb.display;
      }
      deadline?.throwIfAborted();
      const b = await this.supervisor.start();
      if (!this.ended) {
        this.armTimer();
        this.idle?.activity();
      }
      return b;
    } finally {
      this.startDeadline = undefined;
    }
  }

  /** What every jail of the session starts in: its memory and pids groups, or RLIMIT_NPROC (sandbox/jail-start.ts). */
  get jailGroups(): JailGroups {
    return { procs: [this.memory?.procsFile, this.pids?.procsFile], nproc: nprocLimit() };
  }

  onLimitReached(fn: (hit: LimitReached) => void): () => void {
    this.limitListeners.add(fn);
    return () => this.limitListeners.delete(fn);
  }

  /**
   * Reads the pids group's refused-fork counter now and then (a tenant at its limit gets EAGAIN
   * and the engine hears nothing else); the first refusal is said once in the session's log and
   * to `onLimitReached` (its telemetry), then the watch stops.
   */
  private watchPids(): void {
    const group = this.pids;
    if (!group) return;
    this.pidsWatch = setInterval(() => {
      const refused = group.limitHits();
      if (!refused) return;
      clearInterval(this.pidsWatch);
      const limit = pidsLimits().perSession;
      this.spec.serviceLog?.('session', `the session reached its limit of ${limit} tasks (processes and threads): ${refused} fork/clone refused (EAGAIN)\n`);
      for (const fn of this.limitListeners) fn({ resource: 'pids', limit, refused });
    }, PIDS_CHECK_MS);
    this.pidsWatch.unref();
  }

  private async attachDisk(): Promise<void> {
    const setup = this.diskSetup;
    if (!setup) return;
    this.disk = await setup.disks.attach(this.spec.sessionDir);
    if (!this.disk) return;
    this.diskWatch = new DiskFullWatch(this.disk, (f) => {
      this.spec.serviceLog?.(
        'session',
        `the session's filesystem is full (its quota is ${f.limitMb} MiB${f.inodes ? ', out of inodes' : ''}): writes fail with ENOSPC (No space left on device)\n`,
      );
      setup.onFull?.(this.id, f);
    });
  }

  /** The X socket dir when a jailed Xvfb runs (processes bind it to use DISPLAY). */
  get x11Socket(): string | undefined {
    return this.jail && this.display ? this.jail.x11Dir : undefined;
  }

  private get frameKey(): string {
    return `${this.spec.executable}|kiosk=${Boolean(this.spec.options.kiosk_mode)}`;
  }

  private async launch(): Promise<LaunchedBrowser> {
    const o = this.spec.options;
    const jail = this.jail;
    const args = chromiumArgs({
      userDataDir: this.dirs.userData,
      headless: o.headless,
      // Headless: the current viewport (a restart keeps a PATCHed one); headful: the X screen.
      viewport: o.headless ? this.viewport : o.viewport,
      windowFrame: o.headless ? frameHint(this.frameKey) : undefined,
      kiosk: o.kiosk_mode,
      stealth: o.stealth,
      userAgent: this.spec.userAgent,
      gpu: o.gpu,
      startUrl: this.pendingStartUrl ? undefined : o.start_url,
      extensionDirs: this.extensionDirs,
      extraArgs: this.spec.extraArgs,
      runningAsRoot: process.getuid?.() === 0,
      ...jail?.chromiumOptions({ extensionDirs: this.extensionDirs, extensionsDir: this.extensionsDir, extraArgs: this.spec.extraArgs }),
    });
    const onOutput = (c: string) => this.spec.serviceLog?.('browser', c);
    // The first launch runs within the create's deadline; a restart gets a deadline of its own.
    const signal = this.startDeadline ?? AbortSignal.timeout(this.spec.launchDeadlineMs);
    // Sent as soon as the browser's control connection opens, beside the launch's own
    // Browser.getVersion: their round trips overlap it (launch-chromium.ts).
    const onConnected = (control: CdpConnection) => this.setUpBrowser(control);
    let b: LaunchedBrowser;
    if (jail) {
      b = await jail.launch({
        executable: this.spec.executable,
        args,
        extensionsDir: this.extensionsDir,
        display: this.display,
        onOutput,
        signal,
        groups: { procs: [this.freezer?.procsFile, ...this.jailGroups.procs], nproc: this.jailGroups.nproc },
        onConnected,
      });
    } else {
      const env: NodeJS.ProcessEnv = { ...this.spec.env, TMPDIR: await this.browserTmpDir() };
      if (this.display) env.DISPLAY = this.display;
      b = await launchChromium({ executable: this.spec.executable, args, env, onOutput, signal, onConnected });
    }
    this.spec.serviceLog?.('session', `browser started (pid ${b.pid}, ${b.version.product})\n`);
    return b;
  }

  /** Downloads into the session's filesystem; headless: the window fitted to the viewport. Failures only cost those. */
  private async setUpBrowser(control: CdpConnection): Promise<void> {
    // Downloads land in the session's filesystem, where /fs can read them.
    const downloads = control
      .send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: this.jail ? this.jail.browserPath(this.dirs.downloads) : this.dirs.downloads,
        eventsEnabled: true,
      })
      .catch(() => {});
    if (this.spec.options.headless) {
      this.windows?.stop();
      this.windows = new HeadlessWindows(control, () => this.viewport, this.frameKey);
      // Ready means the page area already equals the viewport; a failure here only costs the fit.
      await this.windows.start().catch((err) => this.spec.serviceLog?.('session', `could not fit the window to the viewport: ${(err as Error).message}\n`));
    }
    // Sent together with the window setup (one round trip less before ready).
    await downloads;
  }

  /**
   * Makes sure the browser has its first tab before telemetry starts watching for a navigation
   * the engine is about to make (a deferred start_url, a pool acquire with start_url): the
   * collector then attaches to that tab as it connects instead of racing the tab's creation and
   * missing the load's first request. A failure is left to the navigation that follows.
   */
  async prepareFirstTab(): Promise<void> {
    const b = this.supervisor.current;
    if (!b || this.ended) return;
    await firstTab(b.control).catch(() => {});
  }

  /**
   * Loads a deferred `start_url` in the first tab and waits until it commits (bounded). A page
   * that cannot be reached (DNS, refused) only leaves Chromium's error page, as a start URL on
   * the command line would: logged, never thrown.
   */
  async openStartUrl(): Promise<void> {
    const url = this.pendingStartUrl;
    this.pendingStartUrl = undefined;
    // No browser right now (a crash): its relaunch already gets start_url on the command line.
    const b = this.supervisor.current;
    if (!url || this.ended || !b) return;
    try {
      const r = await navigateFirstTab(b.control, url);
      if (r.errorText) this.spec.serviceLog?.('session', `start_url did not load: ${r.errorText}\n`);
    } catch (err) {
      this.spec.serviceLog?.('session', `could not open start_url: ${(err as Error).message}\n`);
    }
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
      await this.windows?.resize();
      return;
    }
    await sizeAllWindows(b.control, v);
    this.viewport = v;
  }

  private tmpLink?: string;

  private async browserTmpDir(): Promise<string> {
    if (this.dirs.tmp.length <= MAX_TMPDIR_FOR_SOCKET) return this.dirs.tmp;
    const link = shortTmpLink(this.id);
    if (!link) return this.dirs.tmp;
    if (!this.tmpLink) {
      await fs.rm(link, { force: true });
      await fs.symlink(this.dirs.tmp, link);
      this.tmpLink = link;
    }
    return link;
  }

  /** Where this session's extensions are unpacked: its own directory, outside the session filesystem. */
  get extensionsDir(): string {
    return path.join(this.spec.sessionDir, 'extensions');
  }

  /**
   * Adds unpacked extensions and restarts Chromium with all of them (same user-data-dir, so
   * cookies and storage carry over; CDP and live view clients reconnect as after a crash).
   * Resolves once the new browser is ready. If it cannot start with them, the browser comes
   * back without the new ones and this rejects; if even that fails, the session ends.
   */
  loadExtensions(dirs: string[]): Promise<void> {
    const run = async () => {
      if (this.ended) throw new Error('session ended');
      await this.ready();
      const before = this.extensionDirs;
      this.extensionDirs = [...before, ...dirs.filter((d) => !before.includes(d))];
      try {
        await this.supervisor.restart();
      } catch (err) {
        this.extensionDirs = before;
        if (this.ended) throw err;
        await this.supervisor.restart().catch((again: Error) => this.supervisor.giveUp(`browser could not be restarted: ${again.message}`));
        throw err;
      }
    };
    const next = this.reloading.then(run, run);
    this.reloading = next.catch(() => {});
    return next;
  }

  /**
   * Restarts Chromium and runs `fn` on its user-data-dir while it is closed (saving a running
   * browser into a profile, §8): same path as an extension reload (CDP clients reconnect; the
   * jail's other processes keep running, they never see the user-data-dir). Resolves once the
   * new browser is ready and `fn` succeeded; a browser that cannot come back ends the session.
   */
  restartWith(fn: (userDataDir: string) => Promise<void>): Promise<void> {
    const run = async () => {
      if (this.ended) throw new Error('session ended');
      await this.ready();
      try {
        await this.supervisor.restart(() => fn(this.dirs.userData));
      } finally {
        if (!this.ended && !this.supervisor.current) {
          await this.supervisor.restart().catch((again: Error) => this.supervisor.giveUp(`browser could not be restarted: ${again.message}`));
        }
      }
    };
    const next = this.reloading.then(run, run);
    this.reloading = next.catch(() => {});
    return next;
  }

  /**
   * Waits for a running browser (e.g. while it restarts after a crash). Rejects (404
   * `session_ended`) once the session ends: a waiter parked on a browser that gave up after
   * crashes, or on a restart that failed, would otherwise wait forever — holding the client's
   * socket or request open.
   */
  ready(): Promise<LaunchedBrowser> {
    const signal = this.abort.signal;
    const ended = () => new DomainError(404, 'session_ended', `browser session '${this.id}' has ended`);
    if (signal.aborted) return Promise.reject(ended());
    // Whoever waits for the browser is about to talk to it: a frozen jail wakes first.
    this.idle?.activity();
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
    if (this.ended) return;
    this.idle?.activity();
    if (this.holds === 0) this.armTimer();
  }

  holdActive(): () => void {
    this.holds++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const unfreeze = this.idle?.hold();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      unfreeze?.();
      this.touch();
    };
  }

  /**
   * An API call in flight on the session: its jail stays thawed until the call is done (a slow
   * /curl, a create's first navigation). Unlike `holdActive`, the inactivity timeout counts on.
   */
  holdThawed(): () => void {
    return this.idle?.hold() ?? (() => {});
  }

  /** Number of clients currently holding the session active. */
  get activeHolds(): number {
    return this.holds;
  }

  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        if (this.holds === 0) this.spec.onSelfEnd('timeout');
      },
      this.timeoutSeconds * (this.spec.secondMs ?? 1000),
    );
    this.timer.unref();
  }

  setTimeoutSeconds(t: number): void {
    this.timeoutSeconds = t;
    this.touch();
  }

  onEnd(fn: () => void | Promise<void>): void {
    if (this.ended) {
      void Promise.resolve()
        .then(fn)
        .catch(() => {});
      return;
    }
    this.endHooks.push(fn);
  }

  onBrowserRestart(fn: () => void): () => void {
    this.restartListeners.add(fn);
    return () => this.restartListeners.delete(fn);
  }

  /** Subscribes to PATCH updates (telemetry, viewport, …); a listener may return a promise. */
  onUpdate(fn: (s: SessionHandle) => void | Promise<void>): () => void {
    return this.updateListeners.add(fn);
  }

  /**
   * Tells every listener about an update and resolves once they have applied it (the telemetry
   * collector has enabled newly switched-on domains), so what the caller does next is seen.
   * Each listener is bounded; a failing or slow one is logged and never breaks the update.
   */
  notifyUpdate(): Promise<void> {
    return this.updateListeners.run(this);
  }

  uptimeMs(): number {
    return Math.max(0, this.spec.now() - this.startedAt);
  }

  /** Ends the session: signal, feature cleanup, browser, Xvfb, leftovers, directories. Idempotent. */
  end(reason: string, beforeDirsRemoved?: (dirs: SessionDirs, cleanClose: boolean) => Promise<void>): Promise<void> {
    this.ending ??= (async () => {
      this.endedReason = reason;
      if (this.timer) clearTimeout(this.timer);
      // A frozen browser could neither close cleanly nor run the end hooks' last CDP calls.
      this.idle?.stop();
      this.abort.abort(new Error(`session ended: ${reason}`));
      // A start still under way finishes (or fails) first, so nothing it creates escapes cleanup.
      await this.starting?.catch(() => {});
      for (const fn of this.endHooks.reverse()) {
        try {
          await Promise.race([fn(), new Promise((r) => setTimeout(r, 10_000))]);
        } catch {
          /* cleanup of one feature must not stop the rest */
        }
      }
      this.windows?.stop();
      const clean = await this.supervisor.stop().catch(() => false);
      if (beforeDirsRemoved) await beforeDirsRemoved(this.dirs, clean).catch(() => {});
      await this.xvfb?.stop();
      // Anything still carrying the session dir in its command line (helpers, session processes) goes too.
      killMarkedGroups(this.spec.sessionDir);
      try {
        await this.jail?.close();
      } finally {
        // A jail whose close failed still leaves no cgroup, uid claim or session dir behind.
        this.unjailedUser?.release();
        await this.freezer?.close();
        await this.memory?.close();
        clearInterval(this.pidsWatch);
        this.limitListeners.clear();
        await this.pids?.close();
        if (this.tmpLink) await fs.rm(this.tmpLink, { force: true });
        this.diskWatch?.stop();
        // Unmounted first: the image under the mount then goes with the session dir.
        await this.disk?.detach();
        await removeTree(this.spec.sessionDir);
      }
    })();
    return this.ending;
  }
}
