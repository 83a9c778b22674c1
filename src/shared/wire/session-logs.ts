/**
 * Wire schemas of `GET /browsers/{id}/logs/stream` (wire §3.10): which log to follow. The
 * stream itself is SSE of `{event: "log", timestamp, message}`.
 */
import { Type } from '@sinclair/typebox';

export const LogsIdParamSchema = Type.Object({ id: Type.String({ minLength: 1 }) });
export const LogStreamQuerySchema = Type.Object({
  source: Type.Union([Type.Literal('path'), Type.Literal('supervisor')]),
  path: Type.Optional(Type.String()),
  supervisor_process: Type.Optional(Type.String()),
  follow: Type.Optional(Type.Boolean({ default: true })),
});
