/**
 * `/browsers`: create, retrieve, update, list and (soft) delete sessions, plus the session
 * feature's wiring — the session-JWT authenticator,
 * the CDP proxy and its DevTools discovery (`browsers-devtools.ts`), recovery at start and
 * ending every session at stop.
 */
import path from 'node:path';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { sessionJwtAuthenticator, webdriverBasicAuthenticator } from '../domain/sessions/session-access.js';
import { listSessions } from '../domain/sessions/session-list.js';
import { updateSession } from '../domain/sessions/session-update.js';
import { recoverSessions } from '../domain/sessions/session-recovery.js';
import { registerDevtoolsDiscovery } from './browsers-devtools.js';
import { createCdpProxy } from '../runtime/cdp-proxy.js';
import { assertJoinable, endIfInvocationFinished } from '../domain/invocations/invocation-browsers.js';
import { recordApiCalls } from './session-api-calls.js';
import { stringField } from '../../shared/string-field.js';
import { route } from '../route.js';

/** `tags[k]=v` query keys (the official client sends them percent-encoded: `tags%5Bk%5D=v`). */
function tagFilters(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    const m = /^tags\[(.+)\]$/.exec(k);
    if (!m) continue;
    if (typeof v !== 'string') throw ApiError.invalidField(k, 'must be given once');
    out[m[1]] = v;
  }
  return out;
}

export const sessionsFeature: Feature<'sessions' | 'proxyRouting' | 'recovery' | 'telemetry' | 'telemetryExports' | 'postmortem'> = {
  name: 'sessions',
  async register(app, ctx, { sessions, proxyRouting, telemetry, telemetryExports, postmortem }) {
    const jwt = sessions.jwt;
    ctx.authenticators.push(sessionJwtAuthenticator(jwt), webdriverBasicAuthenticator(jwt, ctx.apiKeys));
    ctx.projects.addUsageCounter(async (projectId) => {
      const r = await ctx.db
        .selectFrom('browser_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return { what: 'active browser sessions', count: Number(r.n) };
    });
    const proxy = createCdpProxy(sessions);
    ctx.upgrades.add('/browsers/:id/cdp', proxy.handle);
    // One target (a page from `/json/list`), as Chromium's `/devtools/page/{targetId}`.
    ctx.upgrades.add('/browsers/:id/cdp/devtools/page/:targetId', proxy.handle);
    ctx.onStop(() => sessions.stopAll());

    // Everything else that runs on a create. When the browser has started, before the create
    // answers (in this order): telemetry's collector attaches; a browser of an invocation that
    // ended while it launched is deleted.
    // Its post-mortem is written at the end: registered first, so its end step runs after telemetry's and the processes' (newest first).
    sessions.onSessionStart((h) => postmortem.sessionStarted(h));
    sessions.onSessionStart((h) => telemetry.sessionStarted(h));
    // The CDP proxy's spare connection to the browser: the first client's connect does not wait for one.
    sessions.onSessionStart((h) => proxy.prewarm(h));
    // Then its OTLP export, when `telemetry.export` binds a destination (it follows the session's PATCHes and end).
    sessions.onSessionStart((h) => telemetryExports.sessionStarted(h));
    ctx.onStop(sessions.onSessionStart(endIfInvocationFinished(ctx.db, sessions, ctx.log)));
    // After every call on a session's routes (`/browsers/:id…`, any feature's): a telemetry api_call event.
    app.addHook('onResponse', recordApiCalls(telemetry));
    // While such a call runs (a slow /curl, a computer action) the session's jail is not frozen (idle-freeze.ts).
    app.addHook('preHandler', (req, reply, done) => {
      const id = req.routeOptions?.config?.holdsAwake && req.auth ? stringField(req.params, 'id') : undefined;
      const release = id ? sessions.holdDuringCall(req.auth, id) : undefined;
      if (release) reply.raw.once('close', release);
      done();
    });

    route(
      app,
      'POST /browsers',
      {
        // `invocation_id` must name a running invocation of the caller's project (404, 409).
        preHandler: async (req) => {
          const invocationId = req.body?.invocation_id;
          if (invocationId) await assertJoinable(ctx.db, req.auth, invocationId);
          // `telemetry.export` names a destination of the caller's org (404), rewritten to its id.
          await telemetryExports.resolveExportDestination(req.auth.orgId, req.body?.telemetry);
        },
      },
      async (req, reply) => sessions.create(req.auth, req.body ?? {}, { clientGone: clientGoneSignal(reply) }),
    );

    route(app, 'GET /browsers', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const status = q.status ?? (q.include_deleted ? 'all' : 'active');
      const rows = await listSessions(ctx.db, ctx.store.dialect, {
        orgId: req.auth.orgId,
        projectId: req.auth.projectId,
        status,
        query: q.query,
        region: q.region,
        tags: tagFilters(q),
        ...page,
      });
      const items = sendPage(reply, rows, page);
      return sessions.dtos(items);
    });

    route(app, 'GET /browsers/:id', async (req) => {
      const { id } = req.params;
      return sessions.dto(await sessions.getRow(req.auth, id, req.query.include_deleted ?? false));
    });

    route(
      app,
      'PATCH /browsers/:id',
      {
        // As on create: a destination in `telemetry.export` is resolved to its id first.
        preHandler: async (req) => telemetryExports.resolveExportDestination(req.auth.orgId, req.body?.telemetry),
      },
      async (req) => {
        const row = await updateSession(ctx.db, sessions, req.auth, req.params.id, req.body ?? {}, proxyRouting);
        return sessions.dto(row);
      },
    );

    route(app, 'DELETE /browsers/:id', async (req, reply) => {
      await sessions.delete(req.auth, req.params.id);
      return reply.status(204).send();
    });

    // DevTools discovery under the public CDP address: clients that start from an HTTP URL
    // (chrome-remote-interface, Playwright http endpoints) must be sent to the proxy, not to
    // Chromium. (ignoreTrailingSlash also serves `/json/version/`.)
    registerDevtoolsDiscovery(app, ctx, sessions, jwt);
  },
  async started(ctx, { sessions, recovery }) {
    await recoverSessions({
      recovery,
      db: ctx.db,
      nodeId: sessions.nodeId,
      sessionsDir: path.join(ctx.config.dataDir, 'sessions'),
      owned: (id) => !!sessions.get(id),
      now: ctx.clock.now(),
    });
    // Only now: recovery removes the directories of browsers it does not know.
    sessions.startStandby();
  },
};
