/**
 * Offset pagination query fields as the official client sends them (`?offset=&limit=`); the
 * engine answers a bare array with `X-Has-More` / `X-Next-Offset` (engine/http/pagination.ts).
 */
import { Type } from '@sinclair/typebox';

export const OffsetQuery = {
  // Bounded: a larger number does not fit the databases' 64-bit OFFSET (SQLite: datatype mismatch).
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

/** The common list query: a page plus an exact `name` and a substring `query`. */
export const NamedListQuerySchema = Type.Object({ ...OffsetQuery, name: Type.Optional(Type.String()), query: Type.Optional(Type.String()) });
