/**
 * `/invocations` (wire reference §3.19): invoke an action (sync: waits up to 100 s for the
 * result; async: 202 `queued`), get, list, PATCH to a terminal state, the browsers of an
 * invocation, and the `events` SSE stream.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import type { AppEventLog } from '../domain/apps/app-event-log.js';
import { heartbeat, streamAppEvents } from '../domain/apps/event-stream.js';
import { openSse } from '../http/sse.js';
import { parseSince } from '../domain/apps/since.js';
import { createResponse, invocationDto, isTerminalInvocation, type InvocationStatus } from '../domain/invocations/invocation-record.js';
import type { CreateInvocationBody, Invocations } from '../domain/invocations/invocations.js';
import { sessionsOf } from '../domain/invocations/invocation-browsers.js';
import { SessionSchema } from '../../shared/wire/sessions.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
const Status = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]);
const Name = Type.String({ minLength: 1, maxLength: 255 });
const InvocationSchema = Type.Object({
  id: Type.String(),
  action_name: Type.String(),
  app_name: Type.String(),
  version: Type.String(),
  started_at: Type.String(),
  status: Status,
  finished_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  output: Type.Optional(Type.String()),
  payload: Type.Optional(Type.String()),
  status_reason: Type.Optional(Type.String()),
});
const CreateResponse = Type.Object({ id: Type.String(), action_name: Type.String(), status: Status, output: Type.Optional(Type.String()), status_reason: Type.Optional(Type.String()) });

export function registerInvocationRoutes(app: FastifyInstance, ctx: EngineContext, invocations: Invocations, events: AppEventLog): void {
  const tags = ['invocations'];
  const sessions = () => {
    const s = sessionsOf(ctx);
    if (!s) throw new ApiError(503, 'sessions_unavailable', 'browser sessions are not available on this engine');
    return s;
  };

  app.post(
    '/invocations',
    {
      schema: {
        tags,
        body: Type.Object({
          app_name: Name,
          action_name: Name,
          version: Type.Optional(Type.String({ maxLength: 255 })),
          payload: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
          async: Type.Optional(Type.Boolean()),
          async_timeout_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600 })),
        }),
        response: { 200: CreateResponse, 202: CreateResponse },
      },
    },
    async (req, reply) => {
      const { row, accepted } = await invocations.create(req.auth, req.body as CreateInvocationBody);
      if (accepted) return reply.status(202).send({ id: row.id, action_name: row.action_name, status: 'queued' });
      return createResponse(row);
    },
  );

  app.get('/invocations/:id', { schema: { tags, params: IdParam, response: { 200: InvocationSchema } } }, async (req) => invocationDto(await invocations.get(req.auth, (req.params as { id: string }).id)));

  app.patch(
    '/invocations/:id',
    { schema: { tags, params: IdParam, body: Type.Object({ status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]), output: Type.Optional(Type.String({ maxLength: 4 * 1024 * 1024 })) }), response: { 200: InvocationSchema } } },
    async (req) => invocationDto(await invocations.update(req.auth, (req.params as { id: string }).id, req.body as { status: 'succeeded' | 'failed'; output?: string })),
  );

  app.get(
    '/invocations',
    {
      schema: {
        tags,
        querystring: Type.Object({
          ...OffsetQuery,
          action_name: Type.Optional(Type.String({ maxLength: 255 })),
          app_name: Type.Optional(Type.String({ maxLength: 255 })),
          deployment_id: Type.Optional(Type.String({ maxLength: 255 })),
          query: Type.Optional(Type.String({ maxLength: 255 })),
          since: Type.Optional(Type.String({ maxLength: 64 })),
          status: Type.Optional(Status),
          version: Type.Optional(Type.String({ maxLength: 255 })),
        }),
        response: { 200: Type.Array(InvocationSchema) },
      },
    },
    async (req, reply) => {
      const q = req.query as { offset?: number; limit?: number; action_name?: string; app_name?: string; deployment_id?: string; query?: string; since?: string; status?: InvocationStatus; version?: string };
      const page = pageOf(q);
      const rows = await invocations.list(req.auth, { ...q, since: parseSince(q.since, ctx.clock.now()), ...page });
      return sendPage(reply, rows, page).map(invocationDto);
    },
  );

  app.get('/invocations/:id/browsers', { schema: { tags, params: IdParam, response: { 200: Type.Object({ browsers: Type.Array(SessionSchema) }) } } }, async (req) => {
    const row = await invocations.get(req.auth, (req.params as { id: string }).id);
    return { browsers: await sessions().listByInvocation(req.auth, row.id) };
  });

  app.delete('/invocations/:id/browsers', { schema: { tags, params: IdParam } }, async (req, reply) => {
    const row = await invocations.get(req.auth, (req.params as { id: string }).id);
    await sessions().deleteByInvocation(req.auth, row.id);
    return reply.status(204).send();
  });

  app.get('/invocations/:id/events', { schema: { tags, params: IdParam, querystring: Type.Object({ since: Type.Optional(Type.String({ maxLength: 64 })) }) } }, async (req, reply) => {
    const row = await invocations.get(req.auth, (req.params as { id: string }).id);
    const since = parseSince((req.query as { since?: string }).since, ctx.clock.now());
    const isTerminal = async (): Promise<boolean> => isTerminalInvocation((await invocations.row(row.id)).status);
    await streamAppEvents(openSse(reply, { heartbeat }), events, { ownerId: row.id, since, isTerminal });
  });
}
