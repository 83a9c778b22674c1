/** Routes of credentials and credential providers. */
import { defineRoutes } from './route-spec.js';
import {
  CredentialCreateSchema,
  CredentialIdParamSchema,
  CredentialListQuerySchema,
  CredentialListSchema,
  CredentialPatchSchema,
  CredentialSchema,
  TotpCodeSchema,
} from '../identity.js';
import {
  CredentialProviderCreateSchema,
  CredentialProviderIdParamSchema,
  CredentialProviderItemsSchema,
  CredentialProviderListQuerySchema,
  CredentialProviderListSchema,
  CredentialProviderPatchSchema,
  CredentialProviderSchema,
  CredentialProviderTestResultSchema,
} from '../credential-providers.js';

export const credentialsRoutes = defineRoutes({
  'POST /credentials': {
    schema: { tags: ['credentials'], body: CredentialCreateSchema, response: { 200: CredentialSchema } },
    facts: { audit: 'credentials' },
  },
  'GET /credentials': {
    schema: { tags: ['credentials'], querystring: CredentialListQuerySchema, response: { 200: CredentialListSchema } },
    facts: { audit: 'credentials' },
  },
  'GET /credentials/:id_or_name': {
    schema: { tags: ['credentials'], params: CredentialIdParamSchema, response: { 200: CredentialSchema } },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'PATCH /credentials/:id_or_name': {
    schema: { tags: ['credentials'], params: CredentialIdParamSchema, body: CredentialPatchSchema, response: { 200: CredentialSchema } },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'DELETE /credentials/:id_or_name': {
    schema: { tags: ['credentials'], params: CredentialIdParamSchema },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'GET /credentials/:id_or_name/totp-code': {
    schema: { tags: ['credentials'], params: CredentialIdParamSchema, response: { 200: TotpCodeSchema } },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'POST /org/credential_providers': {
    schema: { tags: ['credential providers'], body: CredentialProviderCreateSchema, response: { 200: CredentialProviderSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/credential_providers': {
    schema: { tags: ['credential providers'], querystring: CredentialProviderListQuerySchema, response: { 200: CredentialProviderListSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/credential_providers/:id': {
    schema: { tags: ['credential providers'], params: CredentialProviderIdParamSchema, response: { 200: CredentialProviderSchema } },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/credential_providers/:id': {
    schema: {
      tags: ['credential providers'],
      params: CredentialProviderIdParamSchema,
      body: CredentialProviderPatchSchema,
      response: { 200: CredentialProviderSchema },
    },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'DELETE /org/credential_providers/:id': {
    schema: { tags: ['credential providers'], params: CredentialProviderIdParamSchema },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'GET /org/credential_providers/:id/items': {
    schema: { tags: ['credential providers'], params: CredentialProviderIdParamSchema, response: { 200: CredentialProviderItemsSchema } },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'POST /org/credential_providers/:id/test': {
    schema: { tags: ['credential providers'], params: CredentialProviderIdParamSchema, response: { 200: CredentialProviderTestResultSchema } },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
});
