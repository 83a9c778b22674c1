/**
 * Wire schemas of the operator console's sign-in (`/console/session`): the API key it is
 * opened with and who is signed in. The renderer's SignedIn is the same shape.
 */
import { Type, type Static } from '@sinclair/typebox';

export const ConsoleSignInSchema = Type.Object({ api_key: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });
export const SignedInSchema = Type.Object({
  key_id: Type.String(),
  name: Type.String(),
  masked_key: Type.String(),
  project_id: Type.Union([Type.String(), Type.Null()]),
});
export type SignedInInfo = Static<typeof SignedInSchema>;
