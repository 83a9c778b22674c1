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
    schema: {
      summary: 'Execute a command in the session and wait for it',
      tags: ['browser process'],
      params: SessionIdParamSchema,
      body: ProcessExecSchema,
      response: { 200: ProcessExecResultSchema },
    },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/spawn': {
    schema: {
      summary: 'Spawn a process in the session',
      tags: ['browser process'],
      params: SessionIdParamSchema,
      body: ProcessSpawnSchema,
      response: { 200: ProcessSpawnResultSchema },
    },
    facts: sessionCall('platform'),
  },
  // An engine route (Kernel has no list): also for an ended session within the post-mortem's retention.
  'GET /browsers/:id/processes': {
    schema: { summary: "List the session's processes", tags: ['browser process'], params: SessionIdParamSchema, response: { 200: ProcessListSchema } },
    facts: sessionCall('platform', 'session-or-ended'),
  },
  'GET /browsers/:id/process/:process_id/status': {
    schema: { summary: "Get a process's status", tags: ['browser process'], params: ProcessParamsSchema, response: { 200: ProcessStatusSchema } },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/:process_id/stdin': {
    schema: { summary: "Write to a process's stdin", tags: ['browser process'], params: ProcessParamsSchema, body: ProcessStdinSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/process/:process_id/stdout/stream': {
    schema: { summary: "Stream a process's output", tags: ['browser process'], params: ProcessParamsSchema },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/:process_id/kill': {
    schema: { summary: 'Send a signal to a process', tags: ['browser process'], params: ProcessParamsSchema, body: ProcessKillSchema },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/process/:process_id/resize': {
    schema: { summary: "Resize a process's terminal", tags: ['browser process'], params: ProcessParamsSchema, body: ProcessResizeSchema },
    facts: sessionCall('platform'),
  },
  // `source=supervisor` also answers for an ended session (its post-mortem), so it follows the session's node after the end too.
  'GET /browsers/:id/logs/stream': {
    schema: { summary: "Stream the session's logs", tags: ['browser logs'], params: SessionIdParamSchema, querystring: LogStreamQuerySchema },
    facts: sessionCall('platform', 'session-or-ended'),
  },
});
