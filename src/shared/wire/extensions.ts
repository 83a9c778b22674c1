/** Wire schema of an uploaded browser extension (`/extensions`, wire reference §3.18). */
import { Type, type Static } from '@sinclair/typebox';

export const ExtensionSchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  size_bytes: Type.Integer(),
  checksum: Type.Union([Type.String(), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  name: Type.Union([Type.String(), Type.Null()]),
});
export type Extension = Static<typeof ExtensionSchema>;
