/**
 * `GET /healthz` (no auth, hidden from the OpenAPI document): what an operator's load balancer
 * and console need — version, uptime, whether tenants run jailed, the store, standby browsers
 * and frozen sessions, how memory is enforced. The engine builds its answer as this type; the console reads it.
 */
import { Type, type Static } from '@sinclair/typebox';

export const StandbyStatusSchema = Type.Object({
  enabled: Type.Boolean(),
  /** Browsers and memory the standby may hold, and its launches at once: now, and the range it moves in (with the CPUs' idle time). */
  budget: Type.Object({
    count: Type.Integer(),
    memory_mb: Type.Number(),
    launches: Type.Integer(),
    launches_min: Type.Integer(),
    launches_max: Type.Integer(),
  }),
  ready: Type.Integer(),
  launching: Type.Integer(),
  frozen: Type.Integer(),
  /** Creates served by a ready browser, by a standby launch already under way (adopted), and by a launch of their own. */
  claimed: Type.Integer(),
  adopted: Type.Integer(),
  cold: Type.Integer(),
  /** A standby launch's duration as measured (a moving average): the window the depth is counted in. */
  launch_ms: Type.Integer(),
  shapes: Type.Array(Type.Object({ shape: Type.String(), ready: Type.Integer(), target: Type.Integer() })),
});
export type StandbyStatus = Static<typeof StandbyStatusSchema>;

/**
 * Disk limits: each session's filesystem quota (`loop`: its own loop-mounted disk; `none`: no
 * quota on this host) and the data dir's free-space reserve, with whether it is below it now.
 */
export const DiskLimitsSchema = Type.Object({
  method: Type.Union([Type.Literal('loop'), Type.Literal('none')]),
  per_session_mb: Type.Integer(),
  reserve_mb: Type.Integer(),
  low: Type.Boolean(),
});

export const HealthSchema = Type.Object({
  ok: Type.Boolean(),
  version: Type.String(),
  uptime_seconds: Type.Integer(),
  jail: Type.Object({
    enabled: Type.Boolean(),
    reason: Type.Optional(Type.String()),
    /**
     * With the jail on: whether Chromium's own sandbox runs inside it (it needs nested user
     * namespaces; `off`: browsers run jailed with `--no-sandbox`). `unknown` until this engine's
     * first jailed browser has started.
     */
    chromium_sandbox: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off'), Type.Literal('unknown')])),
  }),
  store: Type.Object({ kind: Type.String(), ok: Type.Boolean() }),
  standby: StandbyStatusSchema,
  freeze: Type.Object({ method: Type.String(), idle_seconds: Type.Number(), frozen: Type.Integer() }),
  /** How a session's `memory` is enforced: its jails' memory cgroup, or not at all (reported only). */
  memory: Type.Object({ method: Type.Union([Type.Literal('cgroup-v2'), Type.Literal('cgroup-v1'), Type.Literal('none')]) }),
  /** The bounds every tenant is held to. */
  limits: Type.Object({
    /**
     * Whether tenants' connections (browsers, apps, proxy checks) are refused this host's
     * loopback and its own interface addresses; `--egress-allow-loopback` opens both. The
     * addresses themselves are never listed.
     */
    egress: Type.Object({ host_addresses_denied: Type.Boolean(), loopback_denied: Type.Boolean() }),
    /** `/fs/watch`: directories all watches of one session may watch; whether the watcher runs jailed as the session's uid. */
    fs_watch: Type.Object({ max_dirs_per_session: Type.Integer(), jailed: Type.Boolean() }),
    /**
     * The largest message a process running tenant code may send the engine (`--runner-message-max-mb`),
     * and what all runners' unfinished messages may hold in the engine together (8 such messages).
     */
    runner_channel: Type.Object({ max_message_bytes: Type.Integer(), max_pending_bytes: Type.Integer() }),
    /**
     * Tasks (processes and threads) of the jails: a pids cgroup per session and app process
     * inside one per engine, or RLIMIT_NPROC where no pids controller is usable (per session
     * only when the engine is root), or none (no jails on this OS).
     */
    pids: Type.Object({
      method: Type.Union([Type.Literal('cgroup-v2'), Type.Literal('cgroup-v1'), Type.Literal('rlimit'), Type.Literal('none')]),
      per_session: Type.Integer(),
      per_engine: Type.Integer(),
    }),
    /**
     * The tenants' CPU: every jail in one cpu group weighing as much as one ordinary process
     * (`tenants_shares`, cgroup v1 `cpu.shares`), so the engine keeps its turn under load; or
     * none (not root, or no cgroup v1 cpu hierarchy).
     */
    cpu: Type.Object({ method: Type.Union([Type.Literal('cgroup-v1'), Type.Literal('none')]), tenants_shares: Type.Integer() }),
    /** The session filesystem's byte quota and the data dir's free-space reserve. */
    disk: DiskLimitsSchema,
    /** Concurrent exec/execute calls per session and per engine (`in_use` now), and each exec stream's kept bytes. */
    exec: Type.Object({ per_session: Type.Integer(), per_engine: Type.Integer(), output_max_bytes: Type.Integer(), in_use: Type.Integer() }),
    /** Concurrent WebSocket connections per session and per engine (`open` now). */
    connections: Type.Object({ per_session: Type.Integer(), per_engine: Type.Integer(), open: Type.Integer() }),
  }),
});
export type Health = Static<typeof HealthSchema>;
