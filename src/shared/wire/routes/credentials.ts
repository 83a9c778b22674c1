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
    schema: { summary: 'Create a credential', tags: ['credentials'], body: CredentialCreateSchema, response: { 200: CredentialSchema } },
    facts: { audit: 'credentials' },
  },
  'GET /credentials': {
    schema: { summary: 'List credentials', tags: ['credentials'], querystring: CredentialListQuerySchema, response: { 200: CredentialListSchema } },
    facts: { audit: 'credentials' },
  },
  'GET /credentials/:id_or_name': {
    schema: { summary: 'Get a credential', tags: ['credentials'], params: CredentialIdParamSchema, response: { 200: CredentialSchema } },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'PATCH /credentials/:id_or_name': {
    schema: {
      summary: 'Update a credential',
      tags: ['credentials'],
      params: CredentialIdParamSchema,
      body: CredentialPatchSchema,
      response: { 200: CredentialSchema },
    },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'DELETE /credentials/:id_or_name': {
    schema: { summary: 'Delete a credential', tags: ['credentials'], params: CredentialIdParamSchema },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'GET /credentials/:id_or_name/totp-code': {
    schema: { summary: "Get a credential's current TOTP code", tags: ['credentials'], params: CredentialIdParamSchema, response: { 200: TotpCodeSchema } },
    facts: { reach: { table: 'credentials', param: 'id_or_name' }, audit: 'credentials' },
  },
  'POST /org/credential_providers': {
    schema: {
      summary: 'Create a credential provider',
      tags: ['credential providers'],
      body: CredentialProviderCreateSchema,
      response: { 200: CredentialProviderSchema },
    },
    facts: { audit: 'org' },
  },
  'GET /org/credential_providers': {
    schema: {
      summary: 'List credential providers',
      tags: ['credential providers'],
      querystring: CredentialProviderListQuerySchema,
      response: { 200: CredentialProviderListSchema },
    },
    facts: { audit: 'org' },
  },
  'GET /org/credential_providers/:id': {
    schema: {
      summary: 'Get a credential provider',
      tags: ['credential providers'],
      params: CredentialProviderIdParamSchema,
      response: { 200: CredentialProviderSchema },
    },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/credential_providers/:id': {
    schema: {
      summary: 'Update a credential provider',
      tags: ['credential providers'],
      params: CredentialProviderIdParamSchema,
      body: CredentialProviderPatchSchema,
      response: { 200: CredentialProviderSchema },
    },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'DELETE /org/credential_providers/:id': {
    schema: { summary: 'Delete a credential provider', tags: ['credential providers'], params: CredentialProviderIdParamSchema },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'GET /org/credential_providers/:id/items': {
    schema: {
      summary: "List a credential provider's items",
      tags: ['credential providers'],
      params: CredentialProviderIdParamSchema,
      response: { 200: CredentialProviderItemsSchema },
    },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
  'POST /org/credential_providers/:id/test': {
    schema: {
      summary: 'Test a credential provider',
      tags: ['credential providers'],
      params: CredentialProviderIdParamSchema,
      response: { 200: CredentialProviderTestResultSchema },
    },
    facts: { reach: { table: 'credential_providers', param: 'id' }, audit: 'org' },
  },
});
