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
    schema: { summary: 'Create a browser session', tags: ['browsers'], body: SessionCreateSchema, response: { 200: SessionSchema } },
    facts: { forward: 'region', audit: 'browsers' },
  },
  'GET /browsers': {
    schema: { summary: 'List browser sessions', tags: ['browsers'], querystring: SessionListQuerySchema, response: { 200: SessionListSchema } },
    facts: { audit: 'browsers' },
  },
  'GET /browsers/:id': {
    schema: {
      summary: 'Get a browser session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      querystring: SessionGetQuerySchema,
      response: { 200: SessionSchema },
    },
    facts: sessionResourceCall(),
  },
  'PATCH /browsers/:id': {
    schema: {
      summary: 'Update a browser session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      body: SessionUpdateSchema,
      response: { 200: SessionSchema },
    },
    facts: sessionResourceCall(),
  },
  'DELETE /browsers/:id': {
    schema: { summary: 'Delete a browser session', tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionResourceCall(),
  },
  'GET /browsers/:id/cdp/json/version': {
    schema: { summary: "Get the browser's CDP version (DevTools discovery)", tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/cdp/json': {
    schema: { summary: "List the browser's CDP targets (DevTools discovery)", tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/cdp/json/list': {
    schema: { summary: "List the browser's CDP targets (DevTools discovery)", tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET|PUT /browsers/:id/cdp/json/new': {
    schema: { summary: 'Open a new tab (DevTools discovery)', tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET|PUT /browsers/:id/cdp/json/activate/:targetId': {
    schema: { summary: 'Activate a tab (DevTools discovery)', tags: ['browsers'], params: DevtoolsTargetParamsSchema },
    facts: sessionCall('platform'),
  },
  'GET|PUT /browsers/:id/cdp/json/close/:targetId': {
    schema: { summary: 'Close a tab (DevTools discovery)', tags: ['browsers'], params: DevtoolsTargetParamsSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/cdp/json/protocol': {
    schema: { summary: "Get the browser's CDP protocol description", tags: ['browsers'], params: SessionIdParamSchema },
    facts: sessionCall('platform'),
  },
  'GET /json/protocol': {
    schema: { summary: 'Get the CDP protocol description', tags: ['browsers'] },
    facts: { audit: 'json' },
  },
  'POST /browsers/:id/extensions': {
    schema: {
      summary: 'Upload extensions into a running browser session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      consumes: ['multipart/form-data'],
    },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/live': {
    schema: { summary: "Open the session's live view", tags: ['browsers'], params: SessionIdParamSchema, querystring: LiveViewQuerySchema },
    facts: sessionCall('none'),
  },
  'GET|POST|DELETE /browsers/:id/webdriver': {
    schema: { summary: "Call the session's WebDriver endpoint", tags: ['browsers'], params: WebdriverParamsSchema },
    facts: { ...sessionCall('platform'), webdriver: true },
  },
  'GET|POST|DELETE /browsers/:id/webdriver/*': {
    schema: { summary: "Call the session's WebDriver endpoint", tags: ['browsers'], params: WebdriverParamsSchema },
    facts: { ...sessionCall('platform'), webdriver: true },
  },
  'POST /browsers/:id/curl': {
    schema: {
      summary: 'Send an HTTP request through the browser session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      body: CurlRequestSchema,
      response: { 200: CurlResultSchema },
    },
    facts: sessionCall('control'),
  },
  'GET /browsers/:id/devtools': {
    schema: {
      summary: 'Get a DevTools link for the session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      querystring: DevtoolsOpenQuerySchema,
      response: { 200: DevtoolsLinkSchema },
    },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/trace': {
    schema: {
      summary: 'Get a trace viewer link for the session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      querystring: TraceOpenQuerySchema,
      response: { 200: TraceLinkSchema },
    },
    facts: sessionCall('platform'),
  },
  'GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS /browsers/:id/curl/raw': {
    schema: {
      summary: 'Forward a raw HTTP request through the browser session',
      tags: ['browsers'],
      params: SessionIdParamSchema,
      querystring: CurlRawQuerySchema,
    },
    facts: sessionCall('control'),
  },
});
