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

export const ProfileIdParamSchema = Type.Object({ id_or_name: Type.String({ minLength: 1, maxLength: 255 }) });
const ProfileName = Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9._-]+$' });
export const ProfileCreateSchema = Type.Object({ name: Type.Optional(ProfileName) });
export const ProfileRenameSchema = Type.Object({ name: ProfileName });
export const ProfileDownloadQuerySchema = Type.Object({ format: Type.Optional(Type.Union([Type.Literal('tar.zst'), Type.Literal('tar')])) });
export const ProfileListSchema = Type.Array(ProfileSchema);

/**
 * `POST /browsers/{id}/profiles` (Kernel spec §8): the profile a running browser is saved into —
 * by id, by name (created when no profile has it), or a new unnamed one when both are absent.
 */
export const SessionProfileSaveSchema = Type.Object({ id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })), name: Type.Optional(ProfileName) });
