/**
 * Wire schema of an audit log entry (`GET /audit-logs`, export chunks): TypeBox, so the engine
 * validates and documents with it and the renderer and the domain share its static type.
 */
import { Type, type Static } from '@sinclair/typebox';

export const AuditLogEntrySchema = Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  auth_strategy: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  method: Type.String(),
  path: Type.String(),
  route: Type.String(),
  domain: Type.String(),
  client_ip: Type.String(),
  user_agent: Type.String(),
  status: Type.Integer(),
  duration_ms: Type.Integer(),
});
/** Every field is always present. */
export type AuditLogEntry = Static<typeof AuditLogEntrySchema>;

const DEFAULT_CHUNK_ROWS = 10_000;
const MAX_CHUNK_ROWS = 50_000;
const Str = (max: number, extra: object = {}) => Type.String({ maxLength: max, ...extra });
const StrList = (max: number) => Type.Array(Str(max), { maxItems: 200, description: 'comma-joined or repeated' });

/** The filter both the search and the export take. */
const FilterQuery = {
  start: Str(64, { format: 'date-time', description: 'lower bound (inclusive)' }),
  end: Type.Optional(Str(64, { format: 'date-time', description: 'upper bound (exclusive); defaults to now' })),
  auth_strategy: Type.Optional(Str(64)),
  service: Type.Optional(Str(128)),
  method: Type.Optional(Str(32)),
  exclude_method: Type.Optional(StrList(400)),
  search: Type.Optional(Str(1024)),
  search_user_id: Type.Optional(StrList(8192)),
};
export const AuditFilterQuerySchema = Type.Object(FilterQuery);
/** The filter as validated (the domain parses it into an `AuditFilter`). */
export type AuditFilterQuery = Static<typeof AuditFilterQuerySchema>;

export const AuditSearchQuerySchema = Type.Object({
  ...FilterQuery,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  page_token: Type.Optional(Str(200)),
});
export const AuditLogListSchema = Type.Array(AuditLogEntrySchema);

export const AuditExportQuerySchema = Type.Object({
  ...FilterQuery,
  cursor: Type.Optional(Str(200)),
  format: Type.Optional(Type.Union([Type.Literal('jsonl'), Type.Literal('jsonl.gz')], { default: 'jsonl.gz' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CHUNK_ROWS, default: DEFAULT_CHUNK_ROWS })),
});
/** An export chunk: JSON Lines, gzipped unless `format=jsonl`; the engine sends the bytes as they are. */
export const AuditExportChunkSchema = Type.Unsafe<Uint8Array>(Type.String({ contentEncoding: 'binary' }));
