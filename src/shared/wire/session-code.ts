/**
 * Wire schemas of Playwright execution (wire §3.11, spec §7): `POST /browsers/{id}/playwright/execute`
 * (the code, its executor, its result — `success: false` with HTTP 200 for failures of the code
 * itself — and the tab `page` was bound to) and the executors' list and delete.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';

export const MAX_CODE_TIMEOUT_SEC = 600;
/** Executor names: Kernel leaves the syntax open (spec §18.7); ours is a short URL-safe token. */
export const EXECUTOR_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
export const ExecuteCodeSchema = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 1024 * 1024 }),
  timeout_sec: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CODE_TIMEOUT_SEC })),
  executor: Type.Optional(Type.String({ pattern: EXECUTOR_NAME_PATTERN })),
  /** Browserdeck: record a Playwright trace of the call into the session's files. */
  trace: Type.Optional(Type.Boolean()),
});
export const TabSchema = Type.Object({ created: Type.Boolean(), target_id: Type.String() });
export const ExecuteResultSchema = Type.Object({
  success: Type.Boolean(),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String()),
  stdout: Type.Optional(Type.String()),
  stderr: Type.Optional(Type.String()),
  tab: Type.Optional(TabSchema),
  /** Browserdeck, with `trace: true`: the trace's path in the session's files (read it with `/fs/read_file`). */
  trace_path: Type.Optional(Type.String()),
});
export type ExecuteResult = Static<typeof ExecuteResultSchema>;

export const ExecutorSchema = Type.Object({
  name: Type.String(),
  busy: Type.Boolean(),
  /** Browserdeck: calls waiting behind the running one. */
  queued: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.String({ format: 'date-time' }),
  target_id: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
});
export type Executor = Static<typeof ExecutorSchema>;
export const ExecutorListSchema = Type.Object({ executors: Type.Array(ExecutorSchema) });
export const ExecutorLimitErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
  executors: Type.Array(ExecutorSchema),
});
export const ExecutorParamSchema = Type.Object({
  id: SessionIdSchema,
  name: Type.String({ pattern: EXECUTOR_NAME_PATTERN }),
});
export const DeleteExecutorQuerySchema = Type.Object({ close_tab: Type.Optional(Type.Boolean()) });
