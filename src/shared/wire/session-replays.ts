/**
 * Wire schemas of a session's replays (wire §3.13): start options and the replay object whose
 * `replay_view_url` opens the player. Session-JWT callers pass `?jwt=`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';

export const ReplayParamsSchema = Type.Object({ id: SessionIdSchema, replay_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const JwtQuerySchema = Type.Object({ jwt: Type.Optional(Type.String()) });
export const ReplayStartSchema = Type.Object({
  framerate: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  max_duration_in_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 86400 })),
  record_audio: Type.Optional(Type.Boolean()),
});
export const ReplayInfoSchema = Type.Object({
  replay_id: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  replay_view_url: Type.String(),
});
export type ReplayInfo = Static<typeof ReplayInfoSchema>;
export const ReplayInfoListSchema = Type.Array(ReplayInfoSchema);
