/**
 * The contract between browser sessions and everything that operates inside one (computer,
 * files, processes, logs, telemetry, replays, code, curl, live view, BiDi, auth flows).
 * It lives in runtime, below domain: `SessionRuntime` implements the handle, the session manager
 * (domain) implements the registry, and operation features only ever see these interfaces,
 * registered as `services.sessions`.
 */
import type { TelemetryCategoryName } from '../../../shared/wire/telemetry-categories.js';
import type { JailGroups } from '../sandbox/jail-start.js';
import type { SessionScope } from './session-scope.js';

/** The caller of a registry lookup: the fields of the domain's AuthContext that scope a session. */
export interface SessionCaller {
  orgId: string;
  projectId: string;
  /** Set when the caller's credential only grants access to this one session. */
  sessionId?: string;
}

/** Per-session directory layout under `<dataDir>/sessions/<id>/`, all removed when it ends. */
export interface SessionDirs {
  /** The session's own filesystem: what `/fs/*` and processes see as `/`. */
  root: string;
  /** Chromium's user-data-dir. */
  userData: string;
  /** TMPDIR of the browser and of session processes. */
  tmp: string;
  /** Where the browser saves downloads; inside `root` (as `/downloads`). */
  downloads: string;
}

export interface Viewport {
  width: number;
  height: number;
  refresh_rate?: number;
}

/** What a session's browser is launched with (the domain's session options satisfy it). */
export interface BrowserLaunchOptions {
  headless: boolean;
  stealth: boolean;
  viewport: Viewport;
  kiosk_mode: boolean;
  gpu: boolean;
  start_url?: string;
  /** The session's `memory` (`1GiB`, `8GiB`, …): its jails' limit where it is enforced. */
  memory?: string;
}

export interface SessionHandle {
  readonly id: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly headless: boolean;
  readonly viewport: Viewport;
  readonly dirs: SessionDirs;
  /**
   * Whether the browser runs in the browser jail (runtime/sandbox/browser-jail.ts). Without it
   * the CDP proxy holds clients to the session's files by policy (runtime/cdp/unjailed-guard.ts).
   */
  readonly jailed: boolean;
  /** Aborted when the session ends (deleted, timed out, crashed for good, engine stopping). */
  readonly signal: AbortSignal;
  /** Internal browser-level CDP WebSocket URL of the current Chromium (changes after a restart). */
  browserCdpUrl(): string;
  /** Records activity: resets the inactivity timeout. */
  touch(): void;
  /** Holds the session alive while a client stays connected; call the returned function on disconnect. */
  holdActive(): () => void;
  /** Keeps the jail thawed (not frozen while idle) until the returned function is called; the inactivity timeout counts on. */
  holdThawed(): () => void;
  /**
   * The owner of the session's services and cleanups (session-scope.ts): `scope.get(Slot)` reaches
   * a per-session service, `scope.own`/`defer` hands it something to close when the session ends.
   */
  readonly scope: SessionScope;
  /** Registers cleanup that runs when the session ends, before its directories are removed. */
  onEnd(fn: () => void | Promise<void>): void;
  /** Subscribes to browser restarts after a crash (CDP consumers reconnect to the new browser). */
  onBrowserRestart(fn: () => void): () => void;
  /** DISPLAY of the session's Xvfb for headful sessions on Linux; undefined when headless. */
  readonly display?: string;
  /** Jailed headful sessions: the host dir holding the X socket (shown at /tmp/.X11-unix in jails). */
  readonly x11Socket?: string;
  /**
   * What every jail of the session starts in (sandbox/jail-start.ts): the `cgroup.procs` files of
   * its memory group (sandbox/memory-group.ts) and pids group (sandbox/pids-group.ts), or
   * RLIMIT_NPROC where no cgroup bounds its tasks.
   */
  readonly jailGroups?: JailGroups;
  /**
   * Subscribes to the session reaching a limit of its jails (once per limit and session): its
   * tasks (`pids`), where a cgroup counts the forks it refused. Returns an unsubscribe.
   */
  onLimitReached?(fn: (hit: LimitReached) => void): () => void;
  /** Resolves once a browser is running (waits while it restarts after a crash); rejects (404 session_ended) once the session has ended. */
  ready(): Promise<{ wsUrl: string }>;
  /** The session's telemetry configuration (per category), current after PATCH. */
  readonly telemetry: SessionTelemetryConfig;
  /** Subscribes to PATCH updates of the session (telemetry, viewport). Returns an unsubscribe. */
  /** PATCH updates (telemetry, viewport); the update waits (bounded) for a returned promise. */
  onUpdate(fn: (handle: SessionHandle) => void | Promise<void>): () => void;
  /** Inactivity timeout in seconds (the session ends after this long without activity or holds). */
  readonly timeoutSeconds: number;
  /** Directory (inside the session's directory, outside its filesystem) for unpacked extensions. */
  readonly extensionsDir: string;
  /**
   * Restarts Chromium with these unpacked extension directories added to the ones it loads
   * (subscribers of `onBrowserRestart` reconnect); resolves once the new browser is ready.
   */
  loadExtensions(dirs: string[]): Promise<void>;
}

/**
 * `{browser: {console: {enabled}, network: …, captcha: …}}` with every category present
 * (`normalizeTelemetry` fills them; readers still treat a missing one as off);
 * `control.cdp.excluded_methods` names the `cdp_command` methods left out of the stream.
 */
export interface SessionTelemetryConfig {
  browser: Record<TelemetryCategoryName, { enabled: boolean }> & {
    control: { enabled: boolean; cdp?: { excluded_methods: readonly string[] } };
    network: { enabled: boolean; bodies?: boolean };
  };
}

export interface SessionRegistry {
  /**
   * The running session `idOrName` as seen by this caller: same org, same project (or the
   * session the caller's JWT names). Throws DomainError 404 otherwise, and 410/404 when ended.
   * Counts as activity.
   */
  require(auth: SessionCaller, idOrName: string): Promise<SessionHandle>;
  /**
   * Runs `fn` for every session once its browser is up (telemetry collectors attach here so
   * they see a session from its start). The create awaits a returned promise before it opens a
   * deferred `start_url` and answers — bounded (10 s, then it goes on and logs); a rejection is
   * logged, never fails the create. Returns an unsubscribe.
   */
  onSessionStart(fn: (h: SessionHandle) => void | Promise<void>): () => void;
  /** A running session by id, without access checks (engine-internal callers only). */
  get(id: string): SessionHandle | undefined;
  /**
   * For WebSocket upgrades on `/browsers/{id}/…` (which bypass the HTTP auth hook): accepts that
   * session's `?jwt=` or a bearer API key of its org; throws DomainError (401/403/404) otherwise.
   */
  requireUpgrade(req: import('node:http').IncomingMessage, url: URL, id: string): Promise<SessionHandle>;
  /** Whether a session (running or ended) exists for this caller; for 404-vs-empty decisions. */
  exists(auth: SessionCaller, idOrName: string): Promise<boolean>;
}

/** A limit of a session's jails that refused something (its telemetry's `system_limit_reached`). */
export interface LimitReached {
  resource: 'pids';
  /** The limit in force (tasks). */
  limit: number;
  /** How many times it refused so far. */
  refused: number;
}
