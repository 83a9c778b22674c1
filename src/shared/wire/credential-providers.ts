/**
 * Wire schemas of credential providers (`/org/credential_providers`, TypeBox). The token is
 * write-only: no response schema has a field for it, so it cannot be serialized by mistake.
 */
import { Type, type Static } from '@sinclair/typebox';

const DateTime = Type.String({ format: 'date-time' });

export const CredentialProviderSchema = Type.Object({
  id: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  enabled: Type.Boolean(),
  name: Type.String(),
  priority: Type.Integer(),
  provider_type: Type.Literal('onepassword'),
});
export type CredentialProviderRecord = Static<typeof CredentialProviderSchema>;

export const CredentialProviderItemSchema = Type.Object({
  id: Type.String(),
  path: Type.String({ description: 'VaultName/ItemTitle' }),
  title: Type.String(),
  vault_id: Type.String(),
  vault_name: Type.String(),
  urls: Type.Optional(Type.Array(Type.String())),
});

export const CredentialProviderItemsSchema = Type.Object({ items: Type.Array(CredentialProviderItemSchema) });

export const CredentialProviderTestResultSchema = Type.Object({
  success: Type.Boolean(),
  vaults: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  error: Type.Optional(Type.String()),
});
