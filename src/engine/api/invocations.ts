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
import { route } from '../route.js';

export function registerInvocationRoutes(
  app: App,
  ctx: EngineContext,
  invocations: Invocations,
  events: AppEventLog,
  sessions: InvocationSessionManager,
): void {
  route(app, 'POST /invocations', async (req, reply) => {
    const { row, accepted } = await invocations.create(req.auth, req.body);
    if (accepted) return reply.status(202).send({ id: row.id, action_name: row.action_name, status: 'queued' });
    return createResponse(row);
  });

  route(app, 'GET /invocations/:id', async (req) => {
    const row = await invocations.get(req.auth, req.params.id);
    return { ...invocationDto(row), browser_session_ids: await sessions.browserIdsOfInvocation(row.org_id, row.project_id, row.id) };
  });

  route(app, 'PATCH /invocations/:id', async (req) => invocationDto(await invocations.update(req.auth, req.params.id, req.body)));

  route(app, 'GET /invocations', async (req, reply) => {
    const q = req.query;
    const page = pageOf(q);
    const rows = await invocations.list(req.auth, { ...q, since: parseSince(q.since, ctx.clock.now()), ...page });
    return sendPage(reply, rows, page).map(invocationDto);
  });

  route(app, 'GET /invocations/:id/browsers', async (req) => {
    const row = await invocations.get(req.auth, req.params.id);
    return { browsers: await sessions.listByInvocation(req.auth, row.id) };
  });

  route(app, 'DELETE /invocations/:id/browsers', async (req, reply) => {
    const row = await invocations.get(req.auth, req.params.id);
    await sessions.deleteByInvocation(req.auth, row.id);
    return reply.status(204).send();
  });

  route(app, 'GET /invocations/:id/events', async (req, reply) => {
    const row = await invocations.get(req.auth, req.params.id);
    const since = parseSince(req.query.since, ctx.clock.now());
    const isTerminal = async (): Promise<boolean> => isTerminalInvocation((await invocations.row(row.id)).status);
    await streamAppEvents(openSse(reply, { heartbeat }), events, { ownerId: row.id, since, isTerminal });
  });
}
