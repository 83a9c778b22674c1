/**
 * Wire schemas of credential providers (`/org/credential_providers`, TypeBox). The token is
 * write-only: no response schema has a field for it, so it cannot be serialized by mistake.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';

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
export type CredentialProviderItem = Static<typeof CredentialProviderItemSchema>;

export const CredentialProviderTestResultSchema = Type.Object({
  success: Type.Boolean(),
  vaults: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  error: Type.Optional(Type.String()),
});
export type CredentialProviderTestResult = Static<typeof CredentialProviderTestResultSchema>;

/** How long a provider's item list is cached when a create does not say (seconds). */
export const DEFAULT_PROVIDER_CACHE_TTL_SECONDS = 300;
export const CredentialProviderIdParamSchema = Type.Object({ id: Type.String({ minLength: 1 }) });
const Token = Type.String({ minLength: 1, maxLength: 16384, description: 'service account token (write-only)' });
export const CredentialProviderCreateSchema = Type.Object({
  token: Token,
  name: Type.String({ minLength: 1, maxLength: 1020 }),
  // A plain string so an unknown type gets the message naming the supported ones.
  provider_type: Type.String({ description: "'onepassword'" }),
  cache_ttl_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400, default: DEFAULT_PROVIDER_CACHE_TTL_SECONDS })),
});
export const CredentialProviderPatchSchema = Type.Object({
  token: Type.Optional(Token),
  cache_ttl_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400 })),
  enabled: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 1020 })),
  priority: Type.Optional(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })),
});
export const CredentialProviderListQuerySchema = Type.Object({ ...OffsetQuery, query: Type.Optional(Type.String()) });
export const CredentialProviderListSchema = Type.Array(CredentialProviderSchema);
