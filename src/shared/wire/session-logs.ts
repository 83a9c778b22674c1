/**
 * Wire schemas of `GET /browsers/{id}/logs/stream` (wire §3.10): which log to follow. The
 * stream itself is SSE of `LogStreamFrame`s: `{event: "log", timestamp, message}`, or an error.
 */
import { Type, type Static } from '@sinclair/typebox';

export const LogStreamQuerySchema = Type.Object({
  source: Type.Union([Type.Literal('path'), Type.Literal('supervisor')]),
  path: Type.Optional(Type.String()),
  supervisor_process: Type.Optional(Type.String()),
  follow: Type.Optional(Type.Boolean({ default: true })),
});

/** One frame of the stream (SSE data): a line, or the error that ended the stream. */
export const LogStreamFrameSchema = Type.Union([
  Type.Object({ event: Type.Literal('log'), timestamp: Type.String(), message: Type.String() }),
  Type.Object({ event: Type.Literal('error'), timestamp: Type.String(), error: Type.Object({ code: Type.String(), message: Type.String() }) }),
]);
export type LogStreamFrame = Static<typeof LogStreamFrameSchema>;
