/**
 * `GET /system` (org-wide keys only, hidden from the OpenAPI document): what the console's
 * System page shows beyond `/healthz` — where the store is, the data dir's free space, and the
 * engine's recent log lines. Unlike `/healthz` it names paths and hosts, so it is not public;
 * a PostgreSQL URL is reduced to host, port and database (never its user or password).
 */
import { Type, type Static } from '@sinclair/typebox';

export const LogLineSchema = Type.Object({
  time: Type.String({ format: 'date-time' }),
  level: Type.String(),
  msg: Type.String(),
});
export type LogLine = Static<typeof LogLineSchema>;

export const SystemStatusSchema = Type.Object({
  store: Type.Object({
    kind: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
    /** SQLite: the database file; PostgreSQL: `host:port/database`. */
    location: Type.String(),
  }),
  data_dir: Type.Object({
    path: Type.String(),
    free_bytes: Type.Integer(),
    total_bytes: Type.Integer(),
    /** `--disk-reserve-mb`: creates and uploads are refused below this much free space. */
    reserve_bytes: Type.Integer(),
  }),
  /** The engine's last log lines at its log level, oldest first (at most `LOG_TAIL_LINES`). */
  log: Type.Array(LogLineSchema),
});
export type SystemStatus = Static<typeof SystemStatusSchema>;
