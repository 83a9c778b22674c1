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
    schema: { summary: 'List apps', tags: ['apps'], querystring: AppListQuerySchema, response: { 200: AppVersionListSchema } },
    facts: { audit: 'apps' },
  },
  'POST /deployments': {
    schema: { summary: 'Deploy an app', tags: ['deployments'], consumes: ['multipart/form-data'], response: { 200: DeploymentSchema } },
    facts: { audit: 'deployments' },
  },
  'POST /deployments/local': {
    schema: { summary: 'Deploy an app from a local directory', tags: ['deployments'], body: LocalDeploymentSchema, response: { 200: DeploymentSchema } },
    facts: { audit: 'deployments' },
  },
  'GET /deployments/:id': {
    schema: { summary: 'Get a deployment', tags: ['deployments'], params: AppObjectIdParamSchema, response: { 200: DeploymentSchema } },
    facts: { reach: { table: 'deployments', param: 'id' }, audit: 'deployments' },
  },
  'GET /deployments': {
    schema: { summary: 'List deployments', tags: ['deployments'], querystring: DeploymentListQuerySchema, response: { 200: DeploymentListSchema } },
    facts: { audit: 'deployments' },
  },
  'DELETE /deployments/:id': {
    schema: { summary: 'Delete a deployment', tags: ['deployments'], params: AppObjectIdParamSchema },
    facts: { reach: { table: 'deployments', param: 'id' }, audit: 'deployments' },
  },
  'GET /deployments/:id/events': {
    schema: { summary: "Stream a deployment's events", tags: ['deployments'], params: AppObjectIdParamSchema, querystring: EventsSinceQuerySchema },
    facts: { reach: { table: 'deployments', param: 'id' }, audit: 'deployments' },
  },
  'POST /invocations': {
    schema: {
      summary: 'Invoke an app action',
      tags: ['invocations'],
      body: InvocationCreateSchema,
      response: { 200: InvocationCreatedSchema, 202: InvocationCreatedSchema },
    },
    facts: { audit: 'invocations' },
  },
  'GET /invocations/:id': {
    schema: { summary: 'Get an invocation', tags: ['invocations'], params: AppObjectIdParamSchema, response: { 200: InvocationSchema } },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'PATCH /invocations/:id': {
    schema: {
      summary: "Update an invocation's status",
      tags: ['invocations'],
      params: AppObjectIdParamSchema,
      body: InvocationUpdateSchema,
      response: { 200: InvocationSchema },
    },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'GET /invocations': {
    schema: { summary: 'List invocations', tags: ['invocations'], querystring: InvocationListQuerySchema, response: { 200: InvocationListSchema } },
    facts: { audit: 'invocations' },
  },
  'GET /invocations/:id/browsers': {
    schema: {
      summary: 'List the browser sessions of an invocation',
      tags: ['invocations'],
      params: AppObjectIdParamSchema,
      response: { 200: InvocationBrowsersSchema },
    },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'DELETE /invocations/:id/browsers': {
    schema: { summary: 'Delete the browser sessions of an invocation', tags: ['invocations'], params: AppObjectIdParamSchema },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
  'GET /invocations/:id/events': {
    schema: { summary: "Stream an invocation's events", tags: ['invocations'], params: AppObjectIdParamSchema, querystring: EventsSinceQuerySchema },
    facts: { reach: { table: 'invocations', param: 'id' }, audit: 'invocations' },
  },
});
