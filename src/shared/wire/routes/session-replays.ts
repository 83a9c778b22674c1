/** Routes of a session's recordings (kept on its node after it ended). */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import { JwtQuerySchema, ReplayInfoListSchema, ReplayInfoSchema, ReplayParamsSchema, ReplayStartSchema } from '../session-replays.js';

export const sessionReplaysRoutes = defineRoutes({
  'POST /browsers/:id/replays': {
    schema: {
      summary: 'Start a replay recording',
      tags: ['browser replays'],
      params: SessionIdParamSchema,
      querystring: JwtQuerySchema,
      body: ReplayStartSchema,
      response: { 200: ReplayInfoSchema },
    },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/replays': {
    schema: {
      summary: "List the session's replays",
      tags: ['browser replays'],
      params: SessionIdParamSchema,
      querystring: JwtQuerySchema,
      response: { 200: ReplayInfoListSchema },
    },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'POST /browsers/:id/replays/:replay_id/stop': {
    schema: { summary: 'Stop a replay recording', tags: ['browser replays'], params: ReplayParamsSchema, querystring: JwtQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/replays/:replay_id/view': {
    schema: { summary: 'View a replay in the player', tags: ['browser replays'], params: ReplayParamsSchema, querystring: JwtQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/replays/:replay_id': {
    schema: { summary: 'Download a replay', tags: ['browser replays'], params: ReplayParamsSchema, querystring: JwtQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
});
