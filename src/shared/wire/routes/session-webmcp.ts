/** Routes of a session's WebMCP tools. */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import {
  WebMcpCustomToolAddSchema,
  WebMcpCustomToolListSchema,
  WebMcpCustomToolParamSchema,
  WebMcpInvocationFailureSchema,
  WebMcpInvocationResultSchema,
  WebMcpInvokeSchema,
  WebMcpToolListSchema,
  WebMcpToolsQuerySchema,
} from '../session-webmcp.js';

export const sessionWebmcpRoutes = defineRoutes({
  'GET /browsers/:id/webmcp/tools': {
    schema: {
      summary: "List the page's WebMCP tools",
      tags: ['browser webmcp'],
      params: SessionIdParamSchema,
      querystring: WebMcpToolsQuerySchema,
      response: { 200: WebMcpToolListSchema },
    },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/webmcp/invoke': {
    schema: {
      summary: 'Invoke a WebMCP tool',
      tags: ['browser webmcp'],
      params: SessionIdParamSchema,
      body: WebMcpInvokeSchema,
      response: { 200: WebMcpInvocationResultSchema, 504: WebMcpInvocationFailureSchema },
    },
    facts: sessionCall('control'),
  },
  'GET /browsers/:id/webmcp/custom-tools': {
    schema: {
      summary: "List the session's custom WebMCP tools",
      tags: ['browser webmcp'],
      params: SessionIdParamSchema,
      response: { 200: WebMcpCustomToolListSchema },
    },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/webmcp/custom-tools': {
    schema: {
      summary: 'Register a custom WebMCP tool',
      tags: ['browser webmcp'],
      params: SessionIdParamSchema,
      body: WebMcpCustomToolAddSchema,
      response: { 201: WebMcpCustomToolListSchema },
    },
    facts: sessionCall('platform'),
  },
  'DELETE /browsers/:id/webmcp/custom-tools/:tool': {
    schema: { summary: 'Remove a custom WebMCP tool', tags: ['browser webmcp'], params: WebMcpCustomToolParamSchema },
    facts: sessionCall('platform'),
  },
});
