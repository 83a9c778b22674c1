/**
 * `/invocations` (wire reference §3.19): invoke an action (sync: waits up to 100 s for the
 * result; async: 202 `queued`), get, list, PATCH to a terminal state, the browsers of an
 * invocation, and the `events` SSE stream.
 */
import type { App } from '../feature.js';
import type { EngineContext } from '../context.js';
import { pageOf, sendPage } from '../http/pagination.js';
import type { AppEventLog } from '../domain/apps/app-event-log.js';
import { heartbeat, streamAppEvents } from '../domain/apps/event-stream.js';
import { openSse } from '../http/sse.js';
import { parseSince } from '../domain/apps/since.js';
import { createResponse, invocationDto, isTerminalInvocation } from '../domain/invocations/invocation-record.js';
import type { Invocations } from '../domain/invocations/invocations.js';
import type { InvocationSessionManager } from '../domain/invocations/invocation-browsers.js';
import {
  AppObjectIdParamSchema as IdParam,
  EventsSinceQuerySchema,
  InvocationBrowsersSchema,
  InvocationCreatedSchema,
  InvocationCreateSchema,
  InvocationListQuerySchema,
  InvocationListSchema,
  InvocationSchema,
  InvocationUpdateSchema,
} from '../../shared/wire/apps.js';

export function registerInvocationRoutes(
  app: App,
  ctx: EngineContext,
  invocations: Invocations,
  events: AppEventLog,
  sessions: InvocationSessionManager,
): void {
  const tags = ['invocations'];

  app.post(
    '/invocations',
    {
      schema: {
        tags,
        body: InvocationCreateSchema,
        response: { 200: InvocationCreatedSchema, 202: InvocationCreatedSchema },
      },
    },
    async (req, reply) => {
      const { row, accepted } = await invocations.create(req.auth, req.body);
      if (accepted) return reply.status(202).send({ id: row.id, action_name: row.action_name, status: 'queued' });
      return createResponse(row);
    },
  );

  app.get('/invocations/:id', { schema: { tags, params: IdParam, response: { 200: InvocationSchema } } }, async (req) =>
    invocationDto(await invocations.get(req.auth, req.params.id)),
  );

  app.patch('/invocations/:id', { schema: { tags, params: IdParam, body: InvocationUpdateSchema, response: { 200: InvocationSchema } } }, async (req) =>
    invocationDto(await invocations.update(req.auth, req.params.id, req.body)),
  );

  app.get(
    '/invocations',
    {
      schema: {
        tags,
        querystring: InvocationListQuerySchema,
        response: { 200: InvocationListSchema },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = await invocations.list(req.auth, { ...q, since: parseSince(q.since, ctx.clock.now()), ...page });
      return sendPage(reply, rows, page).map(invocationDto);
    },
  );

  app.get('/invocations/:id/browsers', { schema: { tags, params: IdParam, response: { 200: InvocationBrowsersSchema } } }, async (req) => {
    const row = await invocations.get(req.auth, req.params.id);
    return { browsers: await sessions.listByInvocation(req.auth, row.id) };
  });

  app.delete('/invocations/:id/browsers', { schema: { tags, params: IdParam } }, async (req, reply) => {
    const row = await invocations.get(req.auth, req.params.id);
    await sessions.deleteByInvocation(req.auth, row.id);
    return reply.status(204).send();
  });

  app.get('/invocations/:id/events', { schema: { tags, params: IdParam, querystring: EventsSinceQuerySchema } }, async (req, reply) => {
    const row = await invocations.get(req.auth, req.params.id);
    const since = parseSince(req.query.since, ctx.clock.now());
    const isTerminal = async (): Promise<boolean> => isTerminalInvocation((await invocations.row(row.id)).status);
    await streamAppEvents(openSse(reply, { heartbeat }), events, { ownerId: row.id, since, isTerminal });
  });
}
