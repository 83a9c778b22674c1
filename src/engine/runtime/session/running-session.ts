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
import type { BrowserLaunchOptions, SessionDirs, SessionHandle, SessionTelemetryConfig, Viewport } from './session-handle.js';

export type { SessionJailConfig };

export interface RuntimeSpec {
  id: string;
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
  /** Runs once before the first launch with the fresh directories (profile restore). */
  prepare?(dirs: SessionDirs): Promise<void>;
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
  /** How long one second of `timeoutSeconds` lasts (EngineOptions.sessionSecondMs, for tests); absent: 1000. */
  secondMs?: number;
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
  /** Set when the session's profile is written back at the end (profile save_changes). */
  saveProfile?: (dirs: SessionDirs, cleanClose: boolean) => Promise<void>;
  /** Unpacked extensions every launch loads. */
  extensionDirs: string[];
  /** Dirs, Xvfb and the browser within `deadline`; a start stopped half-way is left to `end()`. */
  start(deadline?: AbortSignal): Promise<LaunchedBrowser>;
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
  /** Ends the session and releases everything; idempotent. */
  end(reason: string, beforeDirsRemoved?: (dirs: SessionDirs, cleanClose: boolean) => Promise<void>): Promise<void>;
}
