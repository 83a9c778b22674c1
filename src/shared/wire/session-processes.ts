/**
 * Wire schemas of a session's processes (`/browsers/{id}/process/*`, wire §3.12): exec, spawn
 * (optionally on a PTY), stdin, kill and resize.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';

export const PROCESS_SIGNALS = ['TERM', 'KILL', 'INT', 'HUP'] as const;
export type ProcessSignal = (typeof PROCESS_SIGNALS)[number];

export const ProcessParamsSchema = Type.Object({ id: SessionIdSchema, process_id: Type.String({ minLength: 1 }) });
const Dim = Type.Integer({ minimum: 1, maximum: 1000 });
const ExecFields = {
  command: Type.String({ minLength: 1 }),
  args: Type.Optional(Type.Array(Type.String())),
  as_root: Type.Optional(Type.Boolean()),
  as_user: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  cwd: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  timeout_sec: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 86_400 }), Type.Null()])),
};
export const ProcessExecSchema = Type.Object(ExecFields);
export type ProcessExec = Static<typeof ProcessExecSchema>;
/**
 * What `exec` answers once the command has exited: its exit code, and each stream's first bytes
 * up to the engine's cap (`--exec-output-max-bytes`) in base64. `stdout_truncated` /
 * `stderr_truncated` (engine fields beside Kernel's) say whether the command wrote more than was
 * kept; `output_truncated` is present (true) when either is.
 */
export const ProcessExecResultSchema = Type.Object({
  exit_code: Type.Integer(),
  duration_ms: Type.Integer(),
  stdout_b64: Type.String(),
  stderr_b64: Type.String(),
  timed_out: Type.Optional(Type.Boolean()),
  output_truncated: Type.Optional(Type.Boolean()),
  stdout_truncated: Type.Optional(Type.Boolean()),
  stderr_truncated: Type.Optional(Type.Boolean()),
});
export type ProcessExecResult = Static<typeof ProcessExecResultSchema>;
export const ProcessSpawnSchema = Type.Object({
  ...ExecFields,
  allocate_tty: Type.Optional(Type.Boolean()),
  cols: Type.Optional(Dim),
  rows: Type.Optional(Dim),
});
/** What `spawn` answers: the process id to use on the other routes, the host pid and when it started. */
export const ProcessSpawnResultSchema = Type.Object({ process_id: Type.String(), pid: Type.Integer(), started_at: Type.String({ format: 'date-time' }) });
export type ProcessSpawnResult = Static<typeof ProcessSpawnResultSchema>;
/** `status`: CPU and memory of the command's own process tree (0 once it exited). */
export const ProcessStatusSchema = Type.Object({
  state: Type.Union([Type.Literal('running'), Type.Literal('exited')]),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  cpu_pct: Type.Number(),
  mem_bytes: Type.Integer(),
});
export type ProcessStatus = Static<typeof ProcessStatusSchema>;
export const ProcessStdinSchema = Type.Object({ data_b64: Type.String() });
export const ProcessKillSchema = Type.Object({ signal: Type.Union(PROCESS_SIGNALS.map((sig) => Type.Literal(sig))) });
export const ProcessResizeSchema = Type.Object({ cols: Dim, rows: Dim });

/** Which door started a process: `process/spawn` (also the console's terminal) or `process/exec`. */
export const PROCESS_ORIGINS = ['spawn', 'exec'] as const;
/**
 * One row of `GET /browsers/{id}/processes` (an engine route; Kernel has no process list): every
 * process the session ran, running or exited, kept after the session ended (post-mortem).
 * `exit_signal` names an exit code above 128 (`SIGKILL` for 137); `cpu_pct`/`mem_bytes` are
 * the last sample (0 once exited).
 */
export const ProcessInfoSchema = Type.Object({
  process_id: Type.String(),
  pid: Type.Integer(),
  command: Type.String(),
  args: Type.Array(Type.String()),
  origin: Type.Union(PROCESS_ORIGINS.map((o) => Type.Literal(o))),
  tty: Type.Boolean(),
  state: Type.Union([Type.Literal('running'), Type.Literal('exited')]),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
  exit_signal: Type.Optional(Type.String()),
  timed_out: Type.Optional(Type.Boolean()),
  started_at: Type.String({ format: 'date-time' }),
  ended_at: Type.Optional(Type.String({ format: 'date-time' })),
  cpu_pct: Type.Number(),
  mem_bytes: Type.Integer(),
});
export type ProcessInfo = Static<typeof ProcessInfoSchema>;
export const ProcessListSchema = Type.Array(ProcessInfoSchema);
