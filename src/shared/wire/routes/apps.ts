/** Routes of apps: deployments (upload, local, events), invocations and the app list. */
import { defineRoutes } from './route-spec.js';
import {
  AppListQuerySchema,
  AppObjectIdParamSchema,
  AppVersionListSchema,
  DeploymentListQuerySchema,
  DeploymentListSchema,
  DeploymentSchema,
  EventsSinceQuerySchema,
  InvocationBrowsersSchema,
  InvocationCreateSchema,
  InvocationCreatedSchema,
  InvocationListQuerySchema,
  InvocationListSchema,
  InvocationSchema,
  InvocationUpdateSchema,
  LocalDeploymentSchema,
} from '../apps.js';

export const appsRoutes = defineRoutes({
  'GET /apps': {
    schema: { tags: ['apps'], querystring: AppListQuerySchema, response: { 200: AppVersionListSchema } },
    facts: { audit: 'apps' },
  },
  'POST /deployments': {
    schema: { tags: ['deployments'], consumes: ['multipart/form-data'], response: { 200: DeploymentSchema } },
    facts: { audit: 'deployments' },
  },
  'POST /deployments/local': {
    schema: { tags: ['deployments'], body: LocalDeploymentSchema, response: { 200: DeploymentSchema } },
    facts: { audit: 'deployments' },
  },
  'GET /deployments/:id': {
    schema: { tags: ['deployments'], params: AppObjectIdParamSchema, response: { 200: DeploymentSchema } },
    facts: { reach: { table: 'deployments', param: 'id' }, audit: 'deployments' },
  },
  'GET /deployments': {
    schema: { tags: ['deployments'], querystring: DeploymentListQuerySchema, response: { 200: DeploymentListSchema } },
    facts: { audit: 'deployments' },
  },
  'DELETE /deployments/:id': {
    schema: { tags: ['deployments'], params: AppObjectIdParamSchema },
    facts: { reach: { table: 'deployments', param: 'id' }, audit: 'deployments' },
  },
  'GET /deployments/:id/events': {
    schema: { tags: ['deployments'], params: AppObjectIdParamSchema, querystring: EventsSinceQuerySchema },
    facts: { reach: { table: 'deployments', param: 'id' }, audit: 'deployments' },
  },
  'POST /invocations': {
    schema: { tags: ['invocations'], body: InvocationCreateSchema, response: { 200: InvocationCreatedSchema, 202: InvocationCreatedSchema } },
    facts: { audit: 'invocations' },
  },
  'GET /invocations/:id': {
    schema: { tags: ['invocations'], params: AppObjectIdParamSchema, response: { 200: InvocationSchema } },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'PATCH /invocations/:id': {
    schema: { tags: ['invocations'], params: AppObjectIdParamSchema, body: InvocationUpdateSchema, response: { 200: InvocationSchema } },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'GET /invocations': {
    schema: { tags: ['invocations'], querystring: InvocationListQuerySchema, response: { 200: InvocationListSchema } },
    facts: { audit: 'invocations' },
  },
  'GET /invocations/:id/browsers': {
    schema: { tags: ['invocations'], params: AppObjectIdParamSchema, response: { 200: InvocationBrowsersSchema } },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'DELETE /invocations/:id/browsers': {
    schema: { tags: ['invocations'], params: AppObjectIdParamSchema },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'GET /invocations/:id/events': {
    schema: { tags: ['invocations'], params: AppObjectIdParamSchema, querystring: EventsSinceQuerySchema },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
});
