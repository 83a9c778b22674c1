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
  /** The resource limits in force (README "Resource limits"). */
  limits: Type.Object({
    /** Concurrent exec/execute calls per session and per engine (`in_use` now), and each exec stream's kept bytes. */
    exec: Type.Object({ per_session: Type.Integer(), per_engine: Type.Integer(), output_max_bytes: Type.Integer(), in_use: Type.Integer() }),
    /** Concurrent WebSocket connections per session and per engine (`open` now). */
    connections: Type.Object({ per_session: Type.Integer(), per_engine: Type.Integer(), open: Type.Integer() }),
  }),
});
export type Health = Static<typeof HealthSchema>;
