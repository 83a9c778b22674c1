/**
 * What the session manager (domain) sees of a running session and how it gets one: the narrow
 * interface runtime implements (`SessionRuntime`), the spec a runtime is made from, and the
 * factory the composition root injects. Domain never constructs the concrete class (issue 13
 * item 2): it calls `SessionRuntimeFactory`, which compose.ts binds to `new SessionRuntime`.
 */
import type { ProblemLog } from './problem-log.js';
import type { LaunchedBrowser } from '../chromium/launch-chromium.js';
import type { SessionJailConfig } from '../sandbox/session-jail.js';
import type { LocalForwarder } from '../proxy-forwarder/local-forwarder.js';
import type { BrowserLaunchOptions, SessionHandle, SessionTelemetryConfig, Viewport } from './session-handle.js';
import type { SessionScope } from './session-scope.js';
import type { Timers } from '../../../shared/clock.js';

export type { SessionJailConfig };

/** A profile the browser starts from and is saved back into at the end (domain/profiles' binding). */
export interface RuntimeProfile {
  /** Whether the end saves the browser's state back (its close is then given longer to flush). */
  readonly saveChanges: boolean;
  /** Before the first launch, into the fresh user-data-dir. */
  restore(userDataDir: string): Promise<void>;
  /** At the end, once the browser is closed: saved back (when asked) only after a clean close. */
  finish(userDataDir: string, opts: { save: boolean }): Promise<void>;
}

export interface RuntimeSpec {
  id: string;
  /**
   * The session's owner, made when its create started (session-scope.ts): it holds the create's
   * deadline, and the runtime hands it everything it acquires; ending the session closes it.
   */
  scope: SessionScope;
  orgId: string;
  projectId: string;
  sessionDir: string;
  options: BrowserLaunchOptions;
  timeoutSeconds: number;
  telemetry: SessionTelemetryConfig;
  executable: string;
  env: NodeJS.ProcessEnv;
  userAgent?: string;
  extraArgs: string[];
  /**
   * Launch on about:blank and load `start_url` only when `openStartUrl()` is called (after the
   * telemetry collector watches the first tab), instead of putting it on the command line.
   */
  deferStartUrl?: boolean;
  /** The profile restored before the first launch and saved back at the end. */
  profile?: RuntimeProfile;
  /** Unpacks the session's extensions into its extensions dir before the first launch; the dirs every launch loads. */
  unpackExtensions?(extensionsDir: string): Promise<string[]>;
  now(): number;
  /** Called once when the session ends on its own (timeout, crashes); the manager records it. */
  onSelfEnd(reason: string): void;
  onBrowserChanged(b: LaunchedBrowser): void;
  /** Output of the session's services (`browser`, `display`, `session`) for `/logs/stream?source=supervisor`. */
  serviceLog?: (service: string, chunk: string) => void;
  /** Where a failing or slow update listener is reported. */
  log: ProblemLog;
  /** How long a launch that is not part of a create (a crash restart, an extension reload) may take. */
  launchDeadlineMs: number;
  /** Run the browser in the browser jail (runtime/sandbox/session-jail.ts); absent: on the host. */
  jail?: SessionJailConfig;
  /** Freeze the jail after this long without clients or API calls (idle-freeze.ts); 0/absent: never. */
  freezeIdleMs?: number;
  /** How long one second of `timeoutSeconds` lasts, in ms (default 1000; tests shorten it: config.sessionSecondMs). */
  secondMs?: number;
  /** The inactivity timeout's timers (default the process's; tests advance their own: config.sessionTimers). */
  timers?: Timers;
}

/** What a standby browser takes on when a create claims it (standby-browsers.ts in domain/sessions). */
export type RuntimeAdoption = Pick<RuntimeSpec, 'orgId' | 'projectId' | 'options' | 'timeoutSeconds' | 'telemetry' | 'onSelfEnd' | 'onBrowserChanged'>;

/** Makes a session's runtime (not started yet); compose.ts binds it to the concrete class. */
export type SessionRuntimeFactory = (spec: RuntimeSpec) => RunningSession;

/** A running session as its owner (the session manager) drives it: the handle plus its lifecycle. */
export interface RunningSession extends SessionHandle {
  /** Set once more when a standby browser is claimed (adopt). */
  orgId: string;
  projectId: string;
  viewport: Viewport;
  telemetry: SessionTelemetryConfig;
  readonly startedAt: number;
  readonly ended: boolean;
  readonly endedReason?: string;
  /** Whether the jail is frozen right now (idle). */
  readonly frozen: boolean;
  readonly browser: LaunchedBrowser | undefined;
  /** The launch viewport: the size of a headful session's X screen. */
  readonly screen: Viewport;
  readonly xvfbPid: number | undefined;
  readonly restarts: number;
  readonly activeHolds: number;
  /** Whether a profile is restored into it and saved back at its end (its end is awaited, not backgrounded). */
  readonly hasProfile: boolean;
  /** Dirs, Xvfb and the browser within its scope's deadline; a start stopped half-way is left to `end()`. */
  start(): Promise<LaunchedBrowser>;
  /** A standby browser becomes a tenant's session (owner, options, clocks, callbacks). */
  adopt(a: RuntimeAdoption): void;
  /** Jailed: the browser's traffic leaves through `forwarder` from now on. */
  useEgress(forwarder: LocalForwarder): Promise<void>;
  /** Jailed: the egress allowlist (`network.allowed_hosts`, validated; null: none) from now on. */
  setAllowedHosts(entries: readonly string[] | null): void;
  prepareFirstTab(): Promise<void>;
  openStartUrl(): Promise<void>;
  resizeViewport(v: Viewport): Promise<void>;
  /** Restarts the browser, running `fn` on its closed, flushed user-data-dir in between (§8). */
  restartWith(fn: (userDataDir: string) => Promise<void>): Promise<void>;
  ready(): Promise<LaunchedBrowser>;
  /** An API call in flight: the jail stays thawed until the returned function is called. */
  holdThawed(): () => void;
  setTimeoutSeconds(t: number): void;
  /** Tells every update listener and resolves once they have applied it (bounded). */
  notifyUpdate(): Promise<void>;
  uptimeMs(): number;
  /** Ends the session (closes its scope: everything is released); idempotent. */
  end(reason: string): Promise<void>;
}
