/**
 * Wire schemas of `POST /browsers/{id}/playwright/execute` (wire §3.11): the code to run and
 * its result (`success: false` with HTTP 200 for failures of the code itself).
 */
import { Type, type Static } from '@sinclair/typebox';

export const MAX_CODE_TIMEOUT_SEC = 600;
export const CodeIdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
export const ExecuteCodeSchema = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 1024 * 1024 }),
  timeout_sec: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CODE_TIMEOUT_SEC })),
});
export const ExecuteResultSchema = Type.Object({
  success: Type.Boolean(),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.String()),
  stdout: Type.Optional(Type.String()),
  stderr: Type.Optional(Type.String()),
});
export type ExecuteResult = Static<typeof ExecuteResultSchema>;
