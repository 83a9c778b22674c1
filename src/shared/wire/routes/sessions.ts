/** Routes of browser sessions: create, list, get, update, delete, and what a session serves besides (DevTools discovery, WebDriver, live view, /curl, DevTools and trace links, profile save, extension upload). */
import { defineRoutes, sessionCall, sessionResourceCall } from './route-spec.js';
import {
  DevtoolsTargetParamsSchema,
  LiveViewQuerySchema,
  SessionCreateSchema,
  SessionGetQuerySchema,
  SessionListQuerySchema,
  SessionListSchema,
  SessionSchema,
  SessionUpdateSchema,
} from '../sessions.js';
import { SessionIdParamSchema } from '../session-id.js';
import { WebdriverParamsSchema } from '../webdriver.js';
import { CurlRawQuerySchema, CurlRequestSchema, CurlResultSchema } from '../session-curl.js';
import { DevtoolsLinkSchema, DevtoolsOpenQuerySchema, TraceLinkSchema, TraceOpenQuerySchema } from '../session-inspect.js';

export const sessionsRoutes = defineRoutes({
  'POST /browsers': {
    schema: { tags: ['browsers'], body: SessionCreateSchema, response: { 200: SessionSchema } },
    facts: { forward: 'region', audit: 'browsers' },
  },
  'GET /browsers': {
    schema: { tags: ['browsers'], querystring: SessionListQuerySchema, response: { 200: SessionListSchema } },
    facts: { audit: 'browsers' },
  },
  'GET /browsers/:id': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, querystring: SessionGetQuerySchema, response: { 200: SessionSchema } },
    facts: sessionResourceCall(),
  },
  'PATCH /browsers/:id': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, body: SessionUpdateSchema, response: { 200: SessionSchema } },
    facts: sessionResourceCall(),
  },
  'DELETE /browsers/:id': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionResourceCall(),
  },
  'GET /browsers/:id/cdp/json/version': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/cdp/json': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/cdp/json/list': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET|PUT /browsers/:id/cdp/json/new': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET|PUT /browsers/:id/cdp/json/activate/:targetId': {
    schema: { tags: ['browsers'], params: DevtoolsTargetParamsSchema },
    facts: sessionCall('platform'),
  },
  'GET|PUT /browsers/:id/cdp/json/close/:targetId': {
    schema: { tags: ['browsers'], params: DevtoolsTargetParamsSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/cdp/json/protocol': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET /json/protocol': {
    schema: { tags: ['browsers'] },
    facts: { audit: 'json' },
  },
  'POST /browsers/:id/extensions': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, consumes: ['multipart/form-data'] },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/live': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, querystring: LiveViewQuerySchema },
    facts: sessionCall('none'),
  },
  'GET|POST|DELETE /browsers/:id/webdriver': {
    schema: { tags: ['browsers'], params: WebdriverParamsSchema },
    facts: { ...sessionCall('platform'), webdriver: true },
  },
  'GET|POST|DELETE /browsers/:id/webdriver/*': {
    schema: { tags: ['browsers'], params: WebdriverParamsSchema },
    facts: { ...sessionCall('platform'), webdriver: true },
  },
  'POST /browsers/:id/curl': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, body: CurlRequestSchema, response: { 200: CurlResultSchema } },
    facts: sessionCall('control'),
  },
  'GET /browsers/:id/devtools': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, querystring: DevtoolsOpenQuerySchema, response: { 200: DevtoolsLinkSchema } },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/trace': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, querystring: TraceOpenQuerySchema, response: { 200: TraceLinkSchema } },
    facts: sessionCall('platform'),
  },
  'GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS /browsers/:id/curl/raw': {
    schema: { tags: ['browsers'], params: SessionIdParamSchema, querystring: CurlRawQuerySchema },
    facts: sessionCall('control'),
  },
});
