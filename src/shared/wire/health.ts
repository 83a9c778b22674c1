/**
 * `GET /healthz` (no auth, hidden from the OpenAPI document): what an operator's load balancer
 * and console need — version, uptime, whether tenants run jailed, the store, standby browsers
 * and frozen sessions, how memory is enforced. The engine builds its answer as this type; the console reads it.
 */
import { Type, type Static } from '@sinclair/typebox';

export const StandbyStatusSchema = Type.Object({
  enabled: Type.Boolean(),
  budget: Type.Object({ count: Type.Integer(), memory_mb: Type.Number() }),
  ready: Type.Integer(),
  launching: Type.Integer(),
  frozen: Type.Integer(),
  claimed: Type.Integer(),
  cold: Type.Integer(),
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
  jail: Type.Object({ enabled: Type.Boolean(), reason: Type.Optional(Type.String()) }),
  store: Type.Object({ kind: Type.String(), ok: Type.Boolean() }),
  standby: StandbyStatusSchema,
  freeze: Type.Object({ method: Type.String(), idle_seconds: Type.Number(), frozen: Type.Integer() }),
  /** How a session's `memory` is enforced: its jails' memory cgroup, or not at all (reported only). */
  memory: Type.Object({ method: Type.Union([Type.Literal('cgroup-v2'), Type.Literal('cgroup-v1'), Type.Literal('none')]) }),
  /** Limits on what tenants share, one key per resource. */
  limits: Type.Object({ disk: DiskLimitsSchema }),
});
export type Health = Static<typeof HealthSchema>;
