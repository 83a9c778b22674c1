/** Routes of a session's recordings (kept on its node after it ended). */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import { JwtQuerySchema, ReplayInfoListSchema, ReplayInfoSchema, ReplayParamsSchema, ReplayStartSchema } from '../session-replays.js';

export const sessionReplaysRoutes = defineRoutes({
  'POST /browsers/:id/replays': {
    schema: {
      tags: ['browser replays'],
      params: SessionIdParamSchema,
      querystring: JwtQuerySchema,
      body: ReplayStartSchema,
      response: { 200: ReplayInfoSchema },
    },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/replays': {
    schema: { tags: ['browser replays'], params: SessionIdParamSchema, querystring: JwtQuerySchema, response: { 200: ReplayInfoListSchema } },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'POST /browsers/:id/replays/:replay_id/stop': {
    schema: { tags: ['browser replays'], params: ReplayParamsSchema, querystring: JwtQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/replays/:replay_id/view': {
    schema: { tags: ['browser replays'], params: ReplayParamsSchema, querystring: JwtQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/replays/:replay_id': {
    schema: { tags: ['browser replays'], params: ReplayParamsSchema, querystring: JwtQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
});
