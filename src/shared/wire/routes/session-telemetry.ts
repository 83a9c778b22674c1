/**
 * Routes of a session's telemetry (not recorded as api calls: reading must not feed what it reads) and its HAR.
 * All answer for an ended session too (its post-mortem is kept on the node that ran it), so they follow it there.
 */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import { TelemetryEventsQuerySchema, TelemetryStreamQuerySchema } from '../session-telemetry.js';
import { HarQuerySchema } from '../session-inspect.js';

export const sessionTelemetryRoutes = defineRoutes({
  'GET /browsers/:id/telemetry/stream': {
    schema: {
      summary: "Stream the session's telemetry events",
      tags: ['browser telemetry'],
      params: SessionIdParamSchema,
      querystring: TelemetryStreamQuerySchema,
    },
    facts: sessionCall('none', 'session-or-ended'),
  },
  'GET /browsers/:id/telemetry/events': {
    schema: {
      summary: "List the session's telemetry events",
      tags: ['browser telemetry'],
      params: SessionIdParamSchema,
      querystring: TelemetryEventsQuerySchema,
    },
    facts: sessionCall('none', 'session-or-ended'),
  },
  'GET /browsers/:id/har': {
    schema: {
      summary: "Download the session's network activity as HAR",
      tags: ['browser telemetry'],
      params: SessionIdParamSchema,
      querystring: HarQuerySchema,
    },
    facts: sessionCall('platform', 'session-or-ended'),
  },
});
