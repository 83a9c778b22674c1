/**
 * Wire schemas of a session's telemetry (`/browsers/{id}/telemetry/stream` and `/events`):
 * the stream's replay option and the events query.
 */
import { Type } from '@sinclair/typebox';

export const TelemetrySessionParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
export const TelemetryStreamQuerySchema = Type.Object({ replay: Type.Optional(Type.String({ maxLength: 64 })), jwt: Type.Optional(Type.String()) });
export const TelemetryEventsQuerySchema = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  category: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 20, description: 'comma-joined or repeated' })),
  type: Type.Optional(
    Type.Array(Type.String({ maxLength: 2000 }), {
      maxItems: 50,
      description: 'event types (e.g. page_crashed), comma-joined or repeated; ANDed with category',
    }),
  ),
  since: Type.Optional(Type.String({ maxLength: 64 })),
  until: Type.Optional(Type.String({ maxLength: 64 })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  jwt: Type.Optional(Type.String()),
});
