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
    schema: { tags: ['projects'], body: ProjectCreateSchema, response: { 200: ProjectSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/projects': {
    schema: { tags: ['projects'], querystring: ProjectListQuerySchema, response: { 200: ProjectListSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/projects/:id': {
    schema: { tags: ['projects'], params: ProjectIdParamSchema, response: { 200: ProjectSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/projects/:id': {
    schema: { tags: ['projects'], params: ProjectIdParamSchema, body: ProjectUpdateSchema, response: { 200: ProjectSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'DELETE /org/projects/:id': {
    schema: { tags: ['projects'], params: ProjectIdParamSchema },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'POST /org/api_keys': {
    schema: { tags: ['api-keys'], body: ApiKeyCreateSchema, response: { 200: CreatedApiKeySchema } },
    facts: { audit: 'org' },
  },
  'GET /org/api_keys': {
    schema: { tags: ['api-keys'], querystring: ApiKeyListQuerySchema, response: { 200: ApiKeyListSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/api_keys/:id': {
    schema: { tags: ['api-keys'], params: ApiKeyIdParamSchema, querystring: ApiKeyGetQuerySchema, response: { 200: ApiKeySchema } },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/api_keys/:id': {
    schema: { tags: ['api-keys'], params: ApiKeyIdParamSchema, body: ApiKeyRenameSchema, response: { 200: ApiKeySchema } },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'DELETE /org/api_keys/:id': {
    schema: { tags: ['api-keys'], params: ApiKeyIdParamSchema },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'POST /org/api_keys/:id/rotate': {
    schema: { tags: ['api-keys'], params: ApiKeyIdParamSchema, body: ApiKeyRotateSchema, response: { 200: CreatedApiKeySchema } },
    facts: { reach: { table: 'api_keys', param: 'id' }, audit: 'org' },
  },
  'GET /org/projects/:id/limits': {
    schema: { tags: ['projects'], params: ProjectIdParamSchema, response: { 200: ProjectLimitsSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'PATCH /org/projects/:id/limits': {
    schema: { tags: ['projects'], params: ProjectIdParamSchema, body: ProjectLimitsPatchSchema, response: { 200: ProjectLimitsSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'org' },
  },
  'PATCH /projects/:id/limits': {
    schema: { tags: ['projects'], deprecated: true, params: ProjectIdParamSchema, body: ProjectLimitsPatchSchema, response: { 200: ProjectLimitsSchema } },
    facts: { reach: { table: 'projects', param: 'id' }, audit: 'projects' },
  },
  'GET /org/limits': {
    schema: { tags: ['organization'], response: { 200: OrgLimitsSchema } },
    facts: { audit: 'org' },
  },
  'PATCH /org/limits': {
    schema: { tags: ['organization'], body: OrgLimitsPatchSchema, response: { 200: OrgLimitsSchema } },
    facts: { audit: 'org' },
  },
  'GET /org/entitlements': {
    schema: { tags: ['organization'], response: { 200: EntitlementsSchema } },
    facts: { audit: 'org' },
  },
  'GET /auth/context': {
    schema: { tags: ['organization'], response: { 200: AuthContextSchema } },
    // Who am I (read-only, no secrets): answered for any valid session token too.
    facts: { sessionJwt: 'any', audit: 'auth' },
  },
  'POST /console/session': {
    schema: { tags: ['console'], body: ConsoleSignInSchema, response: { 200: SignedInSchema } },
    facts: { audit: 'console' },
  },
  'GET /console/session': {
    schema: { tags: ['console'], response: { 200: SignedInSchema } },
    facts: { audit: 'console' },
  },
  'DELETE /console/session': {
    schema: { tags: ['console'] },
    facts: { audit: 'console' },
  },
});
