/**
 * Wire schemas of a session's telemetry (`/browsers/{id}/telemetry/stream` and `/events`):
 * the stream's replay option, the events query, and an event in its envelope (what `/events`
 * lists and each SSE frame carries; wire reference §3.14, §5.1).
 */
import { Type, type Static } from '@sinclair/typebox';
import { TELEMETRY_CATEGORIES } from './telemetry-categories.js';

/** `monitor` events describe the collector itself; not configurable, always recorded. */
export const EVENT_CATEGORIES = [...TELEMETRY_CATEGORIES, 'monitor'] as const;
export const TelemetrySourceSchema = Type.Object({
  kind: Type.Union([Type.Literal('cdp'), Type.Literal('kernel_api'), Type.Literal('extension'), Type.Literal('local_process')]),
  /** The producer's own event name, e.g. `Runtime.consoleAPICalled`. */
  event: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
});
/** One event: `ts` in Unix µs; `truncated` when the engine cut its data to its limits. */
export const TelemetryEventSchema = Type.Object({
  category: Type.Union(EVENT_CATEGORIES.map((c) => Type.Literal(c))),
  type: Type.String(),
  ts: Type.Number(),
  source: TelemetrySourceSchema,
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  truncated: Type.Optional(Type.Boolean()),
});
export const TelemetryEnvelopeSchema = Type.Object({ seq: Type.Integer(), event: TelemetryEventSchema });
export type TelemetrySource = Static<typeof TelemetrySourceSchema>;
export type TelemetryEvent = Static<typeof TelemetryEventSchema>;
export type TelemetryEnvelope = Static<typeof TelemetryEnvelopeSchema>;

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
