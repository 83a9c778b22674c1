/**
 * Wire schemas of OTLP telemetry destinations (`/telemetry/destinations`, Kernel spec §12) and of
 * a session's `telemetry.export` (§2.1). Header values are write-only: every read answers them as
 * `""` (the names stay visible so a console can show which headers are set).
 */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';

const DateTime = Type.String({ format: 'date-time' });

export const OtlpDestinationSchema = Type.Object({
  id: Type.String({ maxLength: 128 }),
  name: Type.String(),
  endpoint: Type.String(),
  /** Header names as stored (canonical spelling); values always `""`. */
  headers: Type.Record(Type.String(), Type.String()),
  description: Type.Optional(Type.String()),
  created_at: DateTime,
  updated_at: DateTime,
  /** Failed deliveries since the last success (0 = the latest outcome succeeded or none yet). */
  consecutive_failures: Type.Integer({ minimum: 0 }),
  last_error: Type.Optional(Type.String()),
  last_error_at: Type.Optional(DateTime),
  last_success_at: Type.Optional(DateTime),
});
export type OtlpDestination = Static<typeof OtlpDestinationSchema>;

const Name = Type.String({ minLength: 1, maxLength: 255, description: '^[a-zA-Z0-9._-]{1,255}$, unique in the organization' });
const Endpoint = Type.String({ minLength: 1, maxLength: 2048, description: 'OTLP/HTTP base URL without a signal path (/v1/logs is appended)' });
const Description = Type.String({ maxLength: 1024 });

export const OtlpDestinationCreateSchema = Type.Object(
  {
    endpoint: Endpoint,
    name: Name,
    description: Type.Optional(Description),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
export type OtlpDestinationCreate = Static<typeof OtlpDestinationCreateSchema>;

export const OtlpDestinationPatchSchema = Type.Object(
  {
    endpoint: Type.Optional(Endpoint),
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    /** Per header: a string adds or replaces, `null` deletes, an omitted name is kept. */
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
  },
  { additionalProperties: false },
);
export type OtlpDestinationPatch = Static<typeof OtlpDestinationPatchSchema>;

export const OtlpDestinationIdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
export const OtlpDestinationListQuerySchema = Type.Object({
  ...OffsetQuery,
  name: Type.Optional(Type.String({ maxLength: 255 })),
  query: Type.Optional(Type.String({ maxLength: 2048 })),
});
export const OtlpDestinationListSchema = Type.Array(OtlpDestinationSchema);

/** `telemetry.export` on a create or PATCH: a destination by id or name; `enabled:false` stops exporting. */
export const TelemetryExportRequestSchema = Type.Union([
  Type.Object(
    {
      otlp: Type.Optional(
        Type.Object(
          {
            destination: Type.Optional(
              Type.Object(
                { id: Type.Optional(Type.String({ maxLength: 255 })), name: Type.Optional(Type.String({ maxLength: 255 })) },
                { additionalProperties: false },
              ),
            ),
            enabled: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);
export type TelemetryExportRequest = Static<typeof TelemetryExportRequestSchema>;

/** `telemetry.export` on a Session or pool: the live state, the destination by its id. */
export const TelemetryExportSchema = Type.Object({
  otlp: Type.Optional(Type.Object({ destination: Type.Optional(Type.String()), enabled: Type.Optional(Type.Boolean()) })),
});
export type TelemetryExport = Static<typeof TelemetryExportSchema>;
