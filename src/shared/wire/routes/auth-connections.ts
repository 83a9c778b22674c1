/** Routes of managed auth connections, and their hosted login page (public: its token is in the query). */
import { defineRoutes } from './route-spec.js';
import {
  ConnectionCreateSchema,
  ConnectionIdParamSchema,
  ConnectionListQuerySchema,
  ConnectionPatchSchema,
  FlowSubmitAcceptedSchema,
  FlowSubmitSchema,
  HostedPageQuerySchema,
  LoginStartSchema,
  ManagedAuthListSchema,
  TimelineListSchema,
  TimelineQuerySchema,
} from '../auth-connections.js';
import { LoginResponseSchema, ManagedAuthSchema } from '../identity.js';

export const authConnectionsRoutes = defineRoutes({
  'POST /auth/connections': {
    schema: { summary: 'Create an auth connection', tags: ['auth'], body: ConnectionCreateSchema, response: { 200: ManagedAuthSchema } },
    facts: { audit: 'auth' },
  },
  'GET /auth/connections': {
    schema: { summary: 'List auth connections', tags: ['auth'], querystring: ConnectionListQuerySchema, response: { 200: ManagedAuthListSchema } },
    facts: { audit: 'auth' },
  },
  'GET /auth/connections/:id': {
    schema: { summary: 'Get an auth connection', tags: ['auth'], params: ConnectionIdParamSchema, response: { 200: ManagedAuthSchema } },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'PATCH /auth/connections/:id': {
    schema: {
      summary: 'Update an auth connection',
      tags: ['auth'],
      params: ConnectionIdParamSchema,
      body: ConnectionPatchSchema,
      response: { 200: ManagedAuthSchema },
    },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'DELETE /auth/connections/:id': {
    schema: { summary: 'Delete an auth connection', tags: ['auth'], params: ConnectionIdParamSchema },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'POST /auth/connections/:id/login': {
    schema: {
      summary: 'Start a login flow for an auth connection',
      tags: ['auth'],
      params: ConnectionIdParamSchema,
      body: LoginStartSchema,
      response: { 200: LoginResponseSchema },
    },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'POST /auth/connections/:id/submit': {
    schema: {
      summary: "Submit field values to an auth connection's login flow",
      tags: ['auth'],
      params: ConnectionIdParamSchema,
      body: FlowSubmitSchema,
      response: { 200: FlowSubmitAcceptedSchema },
    },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'GET /auth/connections/:id/events': {
    schema: { summary: "Stream an auth connection's login events", tags: ['auth'], params: ConnectionIdParamSchema },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'GET /auth/connections/:id/timeline': {
    schema: {
      summary: "List an auth connection's timeline",
      tags: ['auth'],
      params: ConnectionIdParamSchema,
      querystring: TimelineQuerySchema,
      response: { 200: TimelineListSchema },
    },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'GET /auth/connections/:id/hosted': {
    schema: { summary: 'Open the hosted login page of an auth connection', hide: true, params: ConnectionIdParamSchema, querystring: HostedPageQuerySchema },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
  'POST /auth/connections/:id/hosted': {
    schema: { summary: 'Submit the hosted login page of an auth connection', hide: true, params: ConnectionIdParamSchema, querystring: HostedPageQuerySchema },
    facts: { reach: { table: 'auth_connections', param: 'id' }, audit: 'auth' },
  },
});
