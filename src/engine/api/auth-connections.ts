/**
 * `/auth/connections`: managed login per profile + domain. CRUD, `login` (starts a flow in a
 * real browser), `submit` (answers the current step), `events` (SSE of `managed_auth_state`
 * until the flow ends), `timeline`, and the hosted page a person can finish a flow on.
 */
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { openSse } from '../http/sse.js';
import type { ConnectionRow, Scope } from '../domain/auth-connections/auth-connections.js';
import { AuthTimeline } from '../domain/auth-connections/auth-timeline.js';
import { connectionDto, stateEvent } from '../domain/auth-connections/connection-dto.js';
import { registerHostedPage } from './auth-connections-hosted.js';
import { TERMINAL, type FlowView } from '../domain/auth-connections/flow-state.js';
import { LoginResponseSchema } from '../../shared/wire/identity.js';
import { checkBrowserTelemetry } from '../domain/auth-connections/flow-recording.js';
import { profileAccess } from '../domain/auth-connections/profile-access.js';
import { route } from '../route.js';

function scopeOf(req: Pick<FastifyRequest, 'auth'>): Scope {
  return { orgId: req.auth.orgId, projectId: req.auth.projectId };
}

export const authConnectionsFeature: Feature<'auth' | 'proxies' | 'profiles' | 'credentialProviders' | 'recovery'> = {
  name: 'auth-connections',
  register(app, ctx, { auth, proxies, profiles, credentialProviders }) {
    const { connections, timeline, flows: service, health } = auth;
    ctx.projects.addUsageCounter(async (projectId) => {
      const r = await ctx.db
        .selectFrom('auth_connections')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return { what: 'auth connections', count: Number(r?.n ?? 0) };
    });
    ctx.onStop(async () => {
      await health.stop();
      await service.stopAll();
    });

    const dto = async (row: ConnectionRow) => connectionDto(row, service.flowView(row), await service.canReauth(row));
    const proxyIdOf = async (scope: Scope, sel: { id?: string; name?: string } | undefined): Promise<string | null | undefined> => {
      if (sel === undefined) return undefined;
      if (!sel.id && !sel.name) return null;
      return (await proxies.select(scope.projectId, sel)).id;
    };

    route(app, 'POST /auth/connections', async (req) => {
      const body = req.body;
      const scope = scopeOf(req);
      checkBrowserTelemetry(body.browser_telemetry);
      const proxyId = await proxyIdOf(scope, body.proxy);
      await credentialProviders.checkRef(scope.orgId, body.credential);
      // Validate before creating the profile, so a bad request leaves nothing behind.
      const row = await connections.create(scope, { ...body, proxy_id: proxyId ?? null, profile_id: null });
      const profileId = await profileAccess(profiles).ensure(scope, row.profile_name);
      return dto(
        await connections.update(
          row.id,
          { profile_id: profileId, next_check_at: new Date(ctx.clock.now().getTime() + row.health_check_interval * 1000).toISOString() },
          row,
        ),
      );
    });
    route(app, 'GET /auth/connections', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = await connections.list(scopeOf(req), { ...page, domain: q.domain, profile_name: q.profile_name, query: q.query });
      return Promise.all(sendPage(reply, rows, page).map(dto));
    });
    route(app, 'GET /auth/connections/:id', async (req) => {
      const id = req.params.id;
      await service.flushed(id);
      return dto(await connections.get(scopeOf(req), id));
    });
    route(app, 'PATCH /auth/connections/:id', async (req) => {
      const scope = scopeOf(req);
      const row = await connections.get(scope, req.params.id);
      const body = req.body ?? {};
      checkBrowserTelemetry(body.browser_telemetry);
      const proxyId = await proxyIdOf(scope, body.proxy);
      await credentialProviders.checkRef(scope.orgId, body.credential);
      const patched = await connections.patch(row, { ...body, proxy_id: proxyId });
      if (body.health_check_interval !== undefined)
        await connections.update(row.id, { next_check_at: new Date(ctx.clock.now().getTime() + patched.health_check_interval * 1000).toISOString() });
      return dto((await connections.byId(row.id))!);
    });
    route(app, 'DELETE /auth/connections/:id', async (req, reply) => {
      const row = await connections.get(scopeOf(req), req.params.id);
      await service.stop(row.id, 'the auth connection was deleted');
      await connections.delete(row);
      return reply.status(204).send();
    });

    route(app, 'POST /auth/connections/:id/login', async (req) => {
      const scope = scopeOf(req);
      const row = await connections.get(scope, req.params.id);
      const body = req.body ?? {};
      checkBrowserTelemetry(body.browser_telemetry);
      const proxyId = await proxyIdOf(scope, body.proxy);
      const flow = await service.startFlow(row, 'LOGIN', {
        proxyId: proxyId === undefined ? undefined : proxyId,
        recordSession: body.record_session,
        telemetry: body.browser_telemetry,
      });
      const v = flow.view;
      const res: Static<typeof LoginResponseSchema> = {
        id: row.id,
        flow_expires_at: v.flow_expires_at,
        flow_type: v.flow_type,
        hosted_url: v.hosted_url,
        handoff_code: v.handoff_code,
      };
      if (v.live_view_url) res.live_view_url = v.live_view_url;
      return res;
    });
    route(app, 'POST /auth/connections/:id/submit', async (req) => {
      const row = await connections.get(scopeOf(req), req.params.id);
      const body = req.body ?? {};
      if (body.sso_provider && body.sso_button_selector) throw ApiError.badRequest('give sso_provider or sso_button_selector, not both');
      service.submit(row, body);
      return { accepted: true };
    });
    route(app, 'GET /auth/connections/:id/events', async (req, reply) => {
      const row = await connections.get(scopeOf(req), req.params.id);
      const sse = openSse(reply, { heartbeat: () => ({ event: 'sse_heartbeat', timestamp: ctx.clock.now().toISOString() }) });
      const send = (v: FlowView): void => {
        sse.send(stateEvent(v, ctx.clock.now().toISOString()));
        if (TERMINAL.includes(v.flow_status)) sse.close();
      };
      const unsubscribe = service.subscribe(row.id, send);
      sse.onClose(unsubscribe);
      const current = service.flowView(row);
      // A stream opened before `login` waits for the next flow; one opened after an ended flow gets its end.
      if (current) send(current);
    });
    route(app, 'GET /auth/connections/:id/timeline', async (req, reply) => {
      const row = await connections.get(scopeOf(req), req.params.id);
      await service.flushed(row.id);
      const q = req.query;
      const page = pageOf(q);
      return sendPage(reply, await timeline.list(row.id, { ...page, type: q.type }), page).map(AuthTimeline.dto);
    });

    registerHostedPage(app, connections, service);
  },
  async started(ctx, { auth, recovery }) {
    // Flows do not survive a restart (their browsers are gone): record that honestly.
    const rows = await ctx.db.selectFrom('auth_connections').select(['id', 'flow']).where('flow', 'like', '%"flow_status":"IN_PROGRESS"%').execute();
    for (const r of rows) {
      const flow = {
        ...(JSON.parse(r.flow!) as FlowView),
        flow_status: 'FAILED',
        error_code: 'engine_restarted',
        error_message: 'the engine restarted while this flow was in progress',
      };
      await ctx.db
        .updateTable('auth_connections')
        .set({ flow: JSON.stringify(flow) })
        .where('id', '=', r.id)
        .execute();
      await ctx.db.updateTable('auth_timeline').set({ status: 'FAILED', error_code: 'engine_restarted' }).where('id', '=', flow.id).execute();
    }
    recovery.note('login flows (FAILED engine_restarted)', rows.length);
    auth.health.start();
  },
};
