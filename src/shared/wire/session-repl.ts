/**
 * Wire schemas of `POST /browsers/{id}/repl` (spec §9): a cell of JavaScript for the session's
 * persistent Node REPL, and its result (`success: false` with HTTP 200 for failures of the code).
 */
import { Type, type Static } from '@sinclair/typebox';

export const MAX_REPL_TIMEOUT_SEC = 300;
export const ReplRequestSchema = Type.Object({
  code: Type.String({ maxLength: 1024 * 1024 }),
  reset: Type.Optional(Type.Boolean()),
  timeout_sec: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_REPL_TIMEOUT_SEC })),
});
export const ReplContentSchema = Type.Union([
  Type.Object({
    type: Type.Literal('text'),
    channel: Type.Union([Type.Literal('write'), Type.Literal('stdout'), Type.Literal('stderr')]),
    text: Type.String(),
  }),
  Type.Object({ type: Type.Literal('image'), mime_type: Type.String(), data_b64: Type.String() }),
]);
export const ReplResultSchema = Type.Object({
  repl_id: Type.String(),
  success: Type.Boolean(),
  content: Type.Optional(Type.Array(ReplContentSchema)),
  content_truncated: Type.Optional(Type.Boolean()),
  duration_ms: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  stack: Type.Optional(Type.String()),
  repl_terminated: Type.Optional(Type.Boolean()),
});
export type ReplResult = Static<typeof ReplResultSchema>;
