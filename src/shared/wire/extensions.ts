/** Wire schema of an uploaded browser extension (`/extensions`, wire reference §3.18). */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';

export const ExtensionSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  size_bytes: Type.Integer(),
  checksum: Type.Union([Type.String(), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  name: Type.Union([Type.String(), Type.Null()]),
});
export type Extension = Static<typeof ExtensionSchema>;

export const ExtensionIdParamSchema = Type.Object({ id_or_name: Type.String({ minLength: 1, maxLength: 255 }) });
export const ExtensionListQuerySchema = Type.Object({
  ...OffsetQuery,
  name: Type.Optional(Type.String({ maxLength: 255 })),
  query: Type.Optional(Type.String({ maxLength: 255 })),
});
export const ExtensionListSchema = Type.Array(ExtensionSchema);
export const ChromeStoreQuerySchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  os: Type.Optional(Type.Union([Type.Literal('win'), Type.Literal('mac'), Type.Literal('linux')])),
});
