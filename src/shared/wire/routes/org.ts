/** Routes of the organization: projects, their limits, API keys, org limits and entitlements, who-am-I, the console sign-in. */
import { defineRoutes } from './route-spec.js';
import {
  ApiKeyCreateSchema,
  ApiKeyGetQuerySchema,
  ApiKeyIdParamSchema,
  ApiKeyListQuerySchema,
  ApiKeyListSchema,
  ApiKeyRenameSchema,
  ApiKeyRotateSchema,
  ApiKeySchema,
  AuthContextSchema,
  CreatedApiKeySchema,
  EntitlementsSchema,
  OrgLimitsPatchSchema,
  OrgLimitsSchema,
  ProjectCreateSchema,
  ProjectIdParamSchema,
  ProjectLimitsPatchSchema,
  ProjectLimitsSchema,
  ProjectListQuerySchema,
  ProjectListSchema,
  ProjectSchema,
  ProjectUpdateSchema,
} from '../org.js';
import { ConsoleSignInSchema, SignedInSchema } from '../console.js';

export const orgRoutes = defineRoutes({
  'POST /org/projects': {
    schema: { summary: 'Create a project', tags: ['projects'], body: ProjectCreateSchema, response: { 200: ProjectSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/projects': {
    schema: { summary: 'List projects', tags: ['projects'], querystring: ProjectListQuerySchema, response: { 200: ProjectListSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/projects/:id': {
    schema: { summary: 'Get a project', tags: ['projects'], params: ProjectIdParamSchema, response: { 200: ProjectSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/projects/:id': {
    schema: { summary: 'Update a project', tags: ['projects'], params: ProjectIdParamSchema, body: ProjectUpdateSchema, response: { 200: ProjectSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'DELETE /org/projects/:id': {
    schema: { summary: 'Delete a project', tags: ['projects'], params: ProjectIdParamSchema },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'POST /org/api_keys': {
    schema: { summary: 'Create an API key', tags: ['api-keys'], body: ApiKeyCreateSchema, response: { 200: CreatedApiKeySchema } },
    facts: { audit: 'org' },
  },
  'GET /org/api_keys': {
    schema: { summary: 'List API keys', tags: ['api-keys'], querystring: ApiKeyListQuerySchema, response: { 200: ApiKeyListSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/api_keys/:id': {
    schema: { summary: 'Get an API key', tags: ['api-keys'], params: ApiKeyIdParamSchema, querystring: ApiKeyGetQuerySchema, response: { 200: ApiKeySchema } },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/api_keys/:id': {
    schema: { summary: 'Rename an API key', tags: ['api-keys'], params: ApiKeyIdParamSchema, body: ApiKeyRenameSchema, response: { 200: ApiKeySchema } },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'DELETE /org/api_keys/:id': {
    schema: { summary: 'Revoke an API key', tags: ['api-keys'], params: ApiKeyIdParamSchema },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'POST /org/api_keys/:id/rotate': {
    schema: { summary: 'Rotate an API key', tags: ['api-keys'], params: ApiKeyIdParamSchema, body: ApiKeyRotateSchema, response: { 200: CreatedApiKeySchema } },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'GET /org/projects/:id/limits': {
    schema: { summary: "Get a project's limits", tags: ['projects'], params: ProjectIdParamSchema, response: { 200: ProjectLimitsSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/projects/:id/limits': {
    schema: {
      summary: "Update a project's limits",
      tags: ['projects'],
      params: ProjectIdParamSchema,
      body: ProjectLimitsPatchSchema,
      response: { 200: ProjectLimitsSchema },
    },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'PATCH /projects/:id/limits': {
    schema: {
      summary: "Update a project's limits (deprecated path)",
      tags: ['projects'],
      deprecated: true,
      params: ProjectIdParamSchema,
      body: ProjectLimitsPatchSchema,
      response: { 200: ProjectLimitsSchema },
    },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'projects' },
  },
  'GET /org/limits': {
    schema: { summary: "Get the organization's limits", tags: ['organization'], response: { 200: OrgLimitsSchema } },
    facts: { audit: 'org' },
  },
  'PATCH /org/limits': {
    schema: { summary: "Update the organization's limits", tags: ['organization'], body: OrgLimitsPatchSchema, response: { 200: OrgLimitsSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/entitlements': {
    schema: { summary: "Get the organization's entitlements", tags: ['organization'], response: { 200: EntitlementsSchema } },
    facts: { audit: 'org' },
  },
  'GET /auth/context': {
    schema: { summary: "Get the caller's identity and scope", tags: ['organization'], response: { 200: AuthContextSchema } },
    // Who am I (read-only, no secrets): answered for any valid session token too.
    facts: { sessionJwt: 'any', audit: 'auth' },
  },
  'POST /console/session': {
    schema: { summary: 'Sign in to the console', tags: ['console'], body: ConsoleSignInSchema, response: { 200: SignedInSchema } },
    facts: { audit: 'console' },
  },
  'GET /console/session': {
    schema: { summary: 'Get the console sign-in', tags: ['console'], response: { 200: SignedInSchema } },
    facts: { audit: 'console' },
  },
  'DELETE /console/session': {
    schema: { summary: 'Sign out of the console', tags: ['console'] },
    facts: { audit: 'console' },
  },
});
