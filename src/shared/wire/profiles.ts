/** Wire schema of a saved browser profile (`/profiles`, and `profile` on session objects). */
import { Type, type Static } from '@sinclair/typebox';

export const ProfileSchema = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  last_used_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type Profile = Static<typeof ProfileSchema>;
