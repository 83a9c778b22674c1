/**
 * Engine configuration: what `createEngine` accepts, with defaults filled in.
 * The server CLI and the desktop main process both build one of these.
 */
import os from 'node:os';
import path from 'node:path';
import type { Clock, Timers } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import type { IdentityOptions } from './domain/secrets/identity-options.js';

export const DEFAULT_PORT = 8420;
export const DEFAULT_HOST = '127.0.0.1';

export interface EngineOptions {
  dataDir?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** `postgres://…` for PostgreSQL; otherwise SQLite inside the data dir. */
  databaseUrl?: string;
  clock?: Clock;
  /** Admin key to create on first start instead of a random one. */
  adminApiKey?: string;
  /** The organization-wide cap on concurrently running browsers (sessions + pool reservations). */
  maxConcurrentSessions?: number;
  /**
   * The one deadline of a session create (`POST /browsers`, pool fills), in ms: directories,
   * Xvfb, the browser's launch and the session-start listeners all run within it (env
   * BROWSERDECK_CREATE_DEADLINE_MS; default 40 s, the launch's former 30 s plus the listeners'
   * 10 s). A launch outside a create (crash restart, extension reload) gets at most 30 s of it.
   */
  createDeadlineMs?: number;
  /** Path of the Chromium/Chrome executable; discovered when absent. */
  chromiumPath?: string;
  /** Address clients use to reach this engine (for session URLs); defaults to http://host:port. */
  publicUrl?: string;
  /**
   * Multi-node (PostgreSQL): the address other engine nodes use to reach this one when they
   * forward a request for a session or pool it runs; defaults to the listening address.
   */
  nodeUrl?: string;
  /**
   * Multi-node (PostgreSQL): seconds without a heartbeat after which a node counts as lost even
   * though it still holds its database lease, i.e. it hangs (`--node-heartbeat-timeout-seconds`,
   * env BROWSERDECK_NODE_HEARTBEAT_TIMEOUT_SECONDS; default 15, at least 10: nodes beat every 5 s).
   * A killed node is noticed by its lease within seconds, whatever this says.
   */
  nodeHeartbeatTimeoutSeconds?: number;
  /** Directory of the built operator UI, served at `/` when present. */
  uiDir?: string;
  /**
   * Issue an org-wide admin key that lives only as long as this engine (`engine.launchApiKey`):
   * deleted at stop, and leftovers of a crashed launch are deleted at the next start. The
   * desktop app's embedded engine uses it so no long-lived key is needed on the desktop.
   */
  ephemeralAdminKey?: boolean;
  /** pino log level; 'silent' in tests. */
  logLevel?: string;
  /** Print lines meant for the operator (admin key on first start). */
  print?: (line: string) => void;
  /** Secrets and tunables read from the environment (injectable for tests). */
  env?: NodeJS.ProcessEnv;
  /** Secrets, proxies and auth connections (secret key provider, proxy providers, flow timers). */
  identity?: IdentityOptions;
  /**
   * Directory holding the scripts child processes start from (runtime/assets.ts ENGINE_ASSETS,
   * in the `src/engine/runtime` layout); defaults to the source tree. A bundled build passes
   * its copied `engine-assets` directory (env BROWSERDECK_ASSETS_ROOT).
   */
  assetsRoot?: string;
  /** The Node runtime children run on; defaults to this process's (Electron: itself with ELECTRON_RUN_AS_NODE=1). */
  childNode?: { path: string; env?: Record<string, string> };
  /**
   * The Chrome Web Store update endpoint `GET /extensions/from_chrome_store` asks (query
   * parameters are added); defaults to Google's (env BROWSERDECK_CHROME_STORE_URL).
   */
  chromeStoreUrl?: string;
  /** How long a Chrome Web Store fetch may take before it answers 504 (default 30 s). */
  chromeStoreTimeoutMs?: number;
  /**
   * Run browsers without the jail even where bubblewrap works, and allow serving other machines
   * where it does not (`--insecure-no-jail`, env BROWSERDECK_INSECURE_NO_JAIL=1). See
   * docs/operate/security-model.md.
   */
  insecureNoJail?: boolean;
  /**
   * Address ranges (CIDR) jailed browsers may not reach, checked on the resolved address of
   * every connection (`--egress-deny`, env BROWSERDECK_EGRESS_DENY, comma-separated). Default:
   * cloud metadata (`169.254.0.0/16`, `fd00:ec2::254/128`).
   */
  egressDeny?: string[];
  /**
   * Whether session browsers, apps and proxy checks may reach this host: its loopback
   * (`127.0.0.0/8`, `::1`, `0.0.0.0/8`, `::`) and every address of its own interfaces (v4 and v6,
   * IPv4-mapped forms too, re-read while the engine runs), checked on the resolved address like
   * `egressDeny`: `--egress-allow-loopback`, env BROWSERDECK_EGRESS_ALLOW_LOOPBACK=1. One switch
   * for both, since a service bound to `0.0.0.0`/`::` answers on each. Default false: a page
   * would otherwise reach the engine's own port and anything bound to 127.0.0.1 or 0.0.0.0
   * (databases, admin UIs). The desktop app's embedded engine allows it (src/main/engine-host.ts).
   * Not part of `egressDeny`, which the engine's own OTLP exports also obey (a loopback collector is fine).
   */
  egressLoopback?: boolean;
  /**
   * Hosts telemetry exports may go to (`--otlp-allowed-hosts`, env BROWSERDECK_OTLP_ALLOWED_HOSTS,
   * comma-separated host names, `*.suffix`, addresses or CIDR ranges). Unset or empty: any host
   * (loopback and private included); the egress deny ranges apply either way
   * (runtime/telemetry/otlp-host-policy.ts).
   */
  otlpAllowedHosts?: string[];
  /**
   * The host uids jails run as when the engine is root (`--jail-uid-base`, `--jail-uid-count`, env
   * BROWSERDECK_JAIL_UID_BASE / BROWSERDECK_JAIL_UID_COUNT; default 200000 and 65536): each session
   * and each app process gets one of its own (runtime/sandbox/jail-user.ts). See docs/operate/security-model.md.
   */
  jailUids?: { base?: number; count?: number };
  /**
   * Tasks (processes and threads) the jails may have: each session, and each app process
   * (`--pids-per-session`, env BROWSERDECK_PIDS_PER_SESSION; default 2048), and all of this
   * engine's together (`--pids-per-engine`, env BROWSERDECK_PIDS_PER_ENGINE; default a quarter of
   * the host's pid_max, at most 65536). A pids cgroup where the engine is root, else RLIMIT_NPROC
   * (runtime/sandbox/pids-group.ts).
   */
  pids?: { perSession?: number; perEngine?: number };
  /**
   * Standby browsers (`--standby N`, env BROWSERDECK_STANDBY): at most N launched, jailed, idle
   * browsers kept ready for `POST /browsers` (how many of them demand calls for); 0 turns them
   * off. Default: as many as `standbyMemoryMb` holds (200 MB each). See docs/operate/standby-and-freezing.md.
   */
  standby?: number;
  /** Memory the standby may take, in MB (`--standby-memory`, env BROWSERDECK_STANDBY_MEMORY_MB; default 10% of RAM, at most 2048). */
  standbyMemoryMb?: number;
  /**
   * Standby launches at once (`--standby-launches`, env BROWSERDECK_STANDBY_LAUNCHES): given, a
   * fixed number; by default one per core, rising to two per core while creates wait for launches
   * and the CPUs have idle time (domain/sessions/standby-depth.ts).
   */
  standbyLaunches?: number;
  /**
   * Freeze a session's jail after this many seconds with no client connected and no API call
   * (`--freeze-idle-seconds`, env BROWSERDECK_FREEZE_IDLE_SECONDS; default 5, 0 = never).
   */
  freezeIdleSeconds?: number;
  /**
   * Tests only (no flag, no variable): how many ms one second of a session's inactivity timeout
   * and of `freezeIdleSeconds` lasts; default 1000. A test watches a 10 s timeout or a 1 s idle
   * freeze in a fraction of the wait while clients still send and see whole seconds.
   */
  sessionSecondMs?: number;
  /**
   * Tests only (no flag, no variable): the timers of sessions' inactivity timeouts; default the
   * process's own. A test that runs a 300 s timeout out with timers it advances by hand sees in
   * which order sessions end without waiting 300 s (test/helpers/manual-timers.ts).
   */
  sessionTimers?: Timers;
  /**
   * Tests only (no flag, no variable): how long the browser may spend evaluating a WebMCP custom
   * tool source before it is refused as one that never finishes; default 10 s (runtime/webmcp/custom-source.ts).
   */
  customToolSourceTimeoutMs?: number;
  /**
   * The largest message, in MiB, a process running tenant code (executor, REPL, WebMCP tool
   * runner, app) may send the engine over its channel (`--runner-message-max-mb`, env
   * BROWSERDECK_RUNNER_MESSAGE_MAX_MB; default 32, 1 to 1024): one larger ends that process
   * with an error (runtime/sandbox/runner-channel.ts). Bounds what the engine buffers per runner.
   */
  runnerMessageMaxMb?: number;
  /**
   * Each session's byte quota in MiB (`--session-disk-mb`, env BROWSERDECK_SESSION_DISK_MB; default
   * 2048): its filesystem (`/tmp`, `/downloads`, `/home/kernel`, the profile) is an ext4 image of
   * this size loop-mounted at its session dir, where the engine is root and loop devices work
   * (runtime/session/session-disks.ts); elsewhere there is no quota (`/healthz` `limits.disk.method: 'none'`).
   */
  sessionDiskMb?: number;
  /**
   * Free space in MiB the data dir keeps for the engine's own writes (`--disk-reserve-mb`, env
   * BROWSERDECK_DISK_RESERVE_MB; default 1024): below it, session creates and large tenant writes
   * into the data dir (uploads, extensions, deployments, profile saves) are refused with 507.
   */
  diskReserveMb?: number;
  /**
   * Hours a replay is kept after its session ended (`--replay-retention-hours`, env
   * BROWSERDECK_REPLAY_RETENTION_HOURS; default 168, a week).
   */
  replayRetentionHours?: number;
  /**
   * Hours an ended session's post-mortem (telemetry, service logs, process list) is kept
   * (`--postmortem-retention-hours`, env BROWSERDECK_POSTMORTEM_RETENTION_HOURS; default: the
   * replays' retention, so the timeline beside a replay never outlives its events or vice versa).
   */
  postmortemRetentionHours?: number;
  /**
   * This node's region (`--region`, env BROWSERDECK_REGION; default `us-east`): the `region` of
   * every session and pool it runs; on a cluster, a create naming a region goes to a node of it.
   */
  region?: string;
  /**
   * How many directories all `/fs/watch` watches of one session may watch together, one inotify
   * watch each (`--fs-watch-max-dirs`, env BROWSERDECK_FS_WATCH_MAX_DIRS; default 8192). A watch
   * whose tree needs more is refused (409 `watch_limit`); one that grows past it ends.
   */
  fsWatchMaxDirs?: number;
  /**
   * Process output and code calls held in the engine's memory (docs/operate/resource-limits.md): at most
   * `perSession` concurrent `exec`/`execute` calls per session and `perEngine` in all (more are
   * 429 `concurrency_limit`; `--exec-per-session`, `--exec-per-engine`, env BROWSERDECK_EXEC_PER_SESSION /
   * BROWSERDECK_EXEC_PER_ENGINE; default 8 and 32), and `outputMaxBytes` of each `exec` stream kept
   * for its answer (`--exec-output-max-bytes`, env BROWSERDECK_EXEC_OUTPUT_MAX_BYTES; default 4 MiB).
   */
  execLimits?: Partial<ExecLimits>;
  /**
   * Concurrent WebSocket connections (CDP, BiDi, live view, terminals, DevTools): at most
   * `perSession` per session and `perEngine` in all (more are refused before the handshake, 429
   * `connection_limit`; `--connections-per-session`, `--connections-per-engine`, env
   * BROWSERDECK_CONNECTIONS_PER_SESSION / BROWSERDECK_CONNECTIONS_PER_ENGINE; default 64 and a
   * quarter of the engine's soft open-file limit, `runtime/limits/open-file-limit.ts`).
   */
  connectionLimits?: Partial<ConnectionLimits>;
}

export interface ExecLimits {
  perSession: number;
  perEngine: number;
  outputMaxBytes: number;
}

export interface ConnectionLimits {
  perSession: number;
  /** Undefined: derived from the open-file limit when the engine starts. */
  perEngine?: number;
}

export const DEFAULT_EGRESS_DENY = ['169.254.0.0/16', 'fd00:ec2::254/128'];

export interface EngineConfig extends Required<
  Omit<
    EngineOptions,
    | 'databaseUrl'
    | 'adminApiKey'
    | 'chromiumPath'
    | 'publicUrl'
    | 'nodeUrl'
    | 'uiDir'
    | 'assetsRoot'
    | 'childNode'
    | 'chromeStoreUrl'
    | 'chromeStoreTimeoutMs'
    | 'customToolSourceTimeoutMs'
    | 'sessionTimers'
    | 'execLimits'
    | 'connectionLimits'
  >
> {
  execLimits: ExecLimits;
  connectionLimits: ConnectionLimits;
  databaseUrl?: string;
  adminApiKey?: string;
  chromiumPath?: string;
  publicUrl?: string;
  nodeUrl?: string;
  uiDir?: string;
  assetsRoot?: string;
  childNode?: { path: string; env?: Record<string, string> };
  chromeStoreUrl?: string;
  chromeStoreTimeoutMs?: number;
  customToolSourceTimeoutMs?: number;
  sessionTimers?: Timers;
  /** Standby launches at once at most (`standbyLaunches` when given, else two per core). */
  standbyLaunchesMax: number;
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BROWSERDECK_DATA_DIR) return env.BROWSERDECK_DATA_DIR;
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming'), 'Browserdeck');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'Browserdeck');
  // A root engine runs its jails as unprivileged users, whose bwrap must search every directory
  // above the session dirs; root's home is closed (0700), so a server's state goes where the FHS
  // puts a service's (the dir itself is searchable only: its files stay 0600/0700).
  if (!env.XDG_DATA_HOME && process.platform === 'linux' && process.getuid?.() === 0) return '/var/lib/browserdeck';
  return path.join(env.XDG_DATA_HOME ?? path.join(os.homedir(), '.local', 'share'), 'browserdeck');
}

/** A headless standby browser's memory as the standby estimates it (domain/sessions/standby-depth.ts): the default `--standby` is what `--standby-memory` holds. */
const STANDBY_HEADLESS_MB = 200;

/** Standby launches at once: a given number fixed; by default one per core, up to two per core while the CPUs have idle time. */
function standbyLaunchRange(given: number | undefined): { standbyLaunches: number; standbyLaunchesMax: number } {
  if (given !== undefined) return { standbyLaunches: given, standbyLaunchesMax: given };
  const cores = Math.max(1, os.availableParallelism());
  return { standbyLaunches: cores, standbyLaunchesMax: 2 * cores };
}

export function resolveConfig(opts: EngineOptions): EngineConfig {
  const env = opts.env ?? process.env;
  const replayRetentionHours = hoursFrom('--replay-retention-hours', opts.replayRetentionHours ?? numberFrom(env.BROWSERDECK_REPLAY_RETENTION_HOURS) ?? 168);
  const standbyMemoryMb = opts.standbyMemoryMb ?? intFrom(env.BROWSERDECK_STANDBY_MEMORY_MB) ?? Math.min(2048, Math.floor(os.totalmem() / 1024 / 1024 / 10));
  return {
    dataDir: path.resolve(opts.dataDir ?? defaultDataDir(env)),
    host: opts.host ?? DEFAULT_HOST,
    port: opts.port ?? DEFAULT_PORT,
    databaseUrl: opts.databaseUrl ?? env.BROWSERDECK_DATABASE_URL,
    clock: opts.clock ?? systemClock,
    adminApiKey: opts.adminApiKey ?? env.BROWSERDECK_ADMIN_API_KEY,
    maxConcurrentSessions: opts.maxConcurrentSessions ?? intFrom(env.BROWSERDECK_MAX_CONCURRENT_SESSIONS) ?? 50,
    createDeadlineMs: opts.createDeadlineMs ?? intFrom(env.BROWSERDECK_CREATE_DEADLINE_MS) ?? 40_000,
    chromiumPath: opts.chromiumPath ?? env.BROWSERDECK_CHROMIUM,
    publicUrl: opts.publicUrl ?? env.BROWSERDECK_PUBLIC_URL,
    nodeUrl: opts.nodeUrl ?? env.BROWSERDECK_NODE_URL,
    nodeHeartbeatTimeoutSeconds: heartbeatTimeoutFrom(opts.nodeHeartbeatTimeoutSeconds ?? numberFrom(env.BROWSERDECK_NODE_HEARTBEAT_TIMEOUT_SECONDS) ?? 15),
    uiDir: opts.uiDir,
    ephemeralAdminKey: opts.ephemeralAdminKey ?? false,
    logLevel: opts.logLevel ?? env.BROWSERDECK_LOG_LEVEL ?? 'info',
    print: opts.print ?? ((line) => process.stdout.write(line + '\n')),
    env,
    identity: opts.identity ?? {},
    assetsRoot: opts.assetsRoot ?? env.BROWSERDECK_ASSETS_ROOT,
    childNode: opts.childNode,
    chromeStoreUrl: opts.chromeStoreUrl ?? env.BROWSERDECK_CHROME_STORE_URL,
    chromeStoreTimeoutMs: opts.chromeStoreTimeoutMs,
    insecureNoJail: opts.insecureNoJail ?? env.BROWSERDECK_INSECURE_NO_JAIL === '1',
    egressDeny: opts.egressDeny ?? listFrom(env.BROWSERDECK_EGRESS_DENY) ?? DEFAULT_EGRESS_DENY,
    egressLoopback: opts.egressLoopback ?? env.BROWSERDECK_EGRESS_ALLOW_LOOPBACK === '1',
    otlpAllowedHosts: opts.otlpAllowedHosts ?? listFrom(env.BROWSERDECK_OTLP_ALLOWED_HOSTS) ?? [],
    jailUids: {
      base: opts.jailUids?.base ?? numberFrom(env.BROWSERDECK_JAIL_UID_BASE),
      count: opts.jailUids?.count ?? numberFrom(env.BROWSERDECK_JAIL_UID_COUNT),
    },
    pids: {
      perSession: opts.pids?.perSession ?? numberFrom(env.BROWSERDECK_PIDS_PER_SESSION),
      perEngine: opts.pids?.perEngine ?? numberFrom(env.BROWSERDECK_PIDS_PER_ENGINE),
    },
    standbyMemoryMb,
    standby: opts.standby ?? intFrom(env.BROWSERDECK_STANDBY) ?? Math.floor(standbyMemoryMb / STANDBY_HEADLESS_MB),
    ...standbyLaunchRange(opts.standbyLaunches ?? intFrom(env.BROWSERDECK_STANDBY_LAUNCHES)),
    freezeIdleSeconds: opts.freezeIdleSeconds ?? intFrom(env.BROWSERDECK_FREEZE_IDLE_SECONDS) ?? 5,
    sessionSecondMs: opts.sessionSecondMs ?? 1000,
    sessionTimers: opts.sessionTimers,
    customToolSourceTimeoutMs: opts.customToolSourceTimeoutMs,
    runnerMessageMaxMb: opts.runnerMessageMaxMb ?? numberFrom(env.BROWSERDECK_RUNNER_MESSAGE_MAX_MB) ?? 32,
    region: regionFrom(opts.region ?? env.BROWSERDECK_REGION ?? 'us-east'),
    fsWatchMaxDirs: positiveInt('--fs-watch-max-dirs', opts.fsWatchMaxDirs ?? numberFrom(env.BROWSERDECK_FS_WATCH_MAX_DIRS) ?? 8192),
    sessionDiskMb: mebibytesFrom('--session-disk-mb', opts.sessionDiskMb ?? intFrom(env.BROWSERDECK_SESSION_DISK_MB) ?? 2048, 8),
    diskReserveMb: mebibytesFrom('--disk-reserve-mb', opts.diskReserveMb ?? intFrom(env.BROWSERDECK_DISK_RESERVE_MB) ?? 1024, 0),
    replayRetentionHours,
    postmortemRetentionHours: hoursFrom(
      '--postmortem-retention-hours',
      opts.postmortemRetentionHours ?? numberFrom(env.BROWSERDECK_POSTMORTEM_RETENTION_HOURS) ?? replayRetentionHours,
    ),
    execLimits: {
      perSession: countFrom('--exec-per-session', opts.execLimits?.perSession ?? numberFrom(env.BROWSERDECK_EXEC_PER_SESSION) ?? 8),
      perEngine: countFrom('--exec-per-engine', opts.execLimits?.perEngine ?? numberFrom(env.BROWSERDECK_EXEC_PER_ENGINE) ?? 32),
      outputMaxBytes: countFrom(
        '--exec-output-max-bytes',
        opts.execLimits?.outputMaxBytes ?? numberFrom(env.BROWSERDECK_EXEC_OUTPUT_MAX_BYTES) ?? 4 * 1024 * 1024,
      ),
    },
    connectionLimits: {
      perSession: countFrom('--connections-per-session', opts.connectionLimits?.perSession ?? numberFrom(env.BROWSERDECK_CONNECTIONS_PER_SESSION) ?? 64),
      perEngine: optionalCount('--connections-per-engine', opts.connectionLimits?.perEngine ?? numberFrom(env.BROWSERDECK_CONNECTIONS_PER_ENGINE)),
    },
  };
}

/** A limit: a whole number of at least 1 (a malformed flag or variable fails the start, naming it). */
function countFrom(flag: string, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a whole number of at least 1 (got ${n})`);
  return n;
}

function optionalCount(flag: string, n: number | undefined): number | undefined {
  return n === undefined ? undefined : countFrom(flag, n);
}

/** A number setting (a flag or a variable); a malformed one becomes NaN, which the setting's own check refuses at start. */
export function numberFrom(v: string | undefined): number | undefined {
  return v === undefined || v === '' ? undefined : Number(v);
}

/** A count setting that must be at least 1; anything else stops the start with the flag's name. */
function positiveInt(flag: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, not ${n}`);
  return n;
}

/** A size in MiB: a whole number of at least `min` (ext4 needs a few MiB for itself). */
/** A retention in hours: positive (fractions allowed, for short-lived test engines). */
function hoursFrom(flag: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} must be a positive number of hours`);
  return v;
}

function mebibytesFrom(flag: string, v: number, min: number): number {
  if (!Number.isInteger(v) || v < min) throw new Error(`${flag} must be a whole number of MiB, at least ${min}`);
  return v;
}

/** Two heartbeats (5 s apart) must fit in it, or a busy node would flap between alive and lost. */
function heartbeatTimeoutFrom(v: number): number {
  if (!Number.isFinite(v) || v < 10) throw new Error(`--node-heartbeat-timeout-seconds must be a number of seconds, at least 10 (got ${v})`);
  return v;
}

/** A region is reported on every session and pool: a name newer Kernel clients can read (lowercase, digits, dashes). */
function regionFrom(v: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(v)) throw new Error(`--region '${v}' is not a region name (lowercase letters, digits and dashes, e.g. us-east)`);
  return v;
}

/** A comma-separated setting (a flag or a variable): trimmed entries, empty ones dropped. */
export function listFrom(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function intFrom(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : undefined;
}
