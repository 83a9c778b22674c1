/** Routes of a session's processes and its log stream. */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import {
  ProcessExecResultSchema,
  ProcessExecSchema,
  ProcessKillSchema,
  ProcessListSchema,
  ProcessParamsSchema,
  ProcessResizeSchema,
  ProcessSpawnResultSchema,
  ProcessSpawnSchema,
  ProcessStatusSchema,
  ProcessStdinSchema,
} from '../session-processes.js';
import { LogStreamQuerySchema } from '../session-logs.js';

export const sessionProcessesRoutes = defineRoutes({
  'POST /browsers/:id/process/exec': {
    schema: { tags: ['browser process'], params: SessionIdParamSchema, body: ProcessExecSchema, response: { 200: ProcessExecResultSchema } },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/spawn': {
    schema: { tags: ['browser process'], params: SessionIdParamSchema, body: ProcessSpawnSchema, response: { 200: ProcessSpawnResultSchema } },
    facts: sessionCall('platform'),
  },
  // An engine route (Kernel has no list): also for an ended session within the post-mortem's retention.
  'GET /browsers/:id/processes': {
    schema: { tags: ['browser process'], params: SessionIdParamSchema, response: { 200: ProcessListSchema } },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/process/:process_id/status': {
    schema: { tags: ['browser process'], params: ProcessParamsSchema, response: { 200: ProcessStatusSchema } },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/:process_id/stdin': {
    schema: { tags: ['browser process'], params: ProcessParamsSchema, body: ProcessStdinSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/process/:process_id/stdout/stream': {
    schema: { tags: ['browser process'], params: ProcessParamsSchema },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/:process_id/kill': {
    schema: { tags: ['browser process'], params: ProcessParamsSchema, body: ProcessKillSchema },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/:process_id/resize': {
    schema: { tags: ['browser process'], params: ProcessParamsSchema, body: ProcessResizeSchema },
    facts: sessionCall('platform'),
  },
  // `source=supervisor` also answers for an ended session (its post-mortem), so it follows the session's node after the end too.
  'GET /browsers/:id/logs/stream': {
    schema: { tags: ['browser logs'], params: SessionIdParamSchema, querystring: LogStreamQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
});
