/** Routes that run code in a session: Playwright execution, its executors, the REPL. */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import { ReplRequestSchema, ReplResultSchema } from '../session-repl.js';
import {
  DeleteExecutorQuerySchema,
  ExecuteCodeSchema,
  ExecuteResultSchema,
  ExecutorLimitErrorSchema,
  ExecutorListSchema,
  ExecutorParamSchema,
} from '../session-code.js';

export const sessionCodeRoutes = defineRoutes({
  'POST /browsers/:id/repl': {
    schema: {
      summary: "Run code in the session's REPL",
      tags: ['browser repl'],
      params: SessionIdParamSchema,
      body: ReplRequestSchema,
      response: { 200: ReplResultSchema },
    },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/playwright/execute': {
    schema: {
      summary: 'Execute Playwright code against the browser session',
      tags: ['browser playwright'],
      params: SessionIdParamSchema,
      body: ExecuteCodeSchema,
      response: { 200: ExecuteResultSchema, 409: ExecutorLimitErrorSchema },
    },
    facts: sessionCall('control'),
  },
  'GET /browsers/:id/playwright/executors': {
    schema: {
      summary: "List the session's Playwright executors",
      tags: ['browser playwright'],
      params: SessionIdParamSchema,
      response: { 200: ExecutorListSchema },
    },
    facts: sessionCall('platform'),
  },
  'DELETE /browsers/:id/playwright/executors/:name': {
    schema: {
      summary: "Stop one of the session's Playwright executors",
      tags: ['browser playwright'],
      params: ExecutorParamSchema,
      querystring: DeleteExecutorQuerySchema,
    },
    facts: sessionCall('platform'),
  },
});
