/**
 * `/proxies`: create, get, list, rename, soft delete, and health checks. A check without `url`
 * records status/ip/last_checked on the proxy (and `status_reason`, why it is unavailable); a check with `url` only reports reachability of
 * that target through the proxy and leaves the stored status alone.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { checkConnectivity, checkThroughProxy } from '../domain/proxies/proxy-check.js';
import { checkReason } from '../domain/proxies/proxy-check-reason.js';
import { route } from '../route.js';

const DEFAULT_CHECK_URL = 'https://api.ipify.org?format=json';

function checkTarget(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw ApiError.invalidField('url', 'must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw ApiError.invalidField('url', 'must be an http or https URL');
  return u.toString();
}

export const proxiesFeature: Feature<'proxies' | 'proxyRouting'> = {
  name: 'proxies',
  register(app, ctx, { proxies, proxyRouting: routing }) {
    const identity = ctx.config.identity;
    ctx.projects.addUsageCounter(async (projectId) => {
      const r = await ctx.db
        .selectFrom('proxies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return { what: 'proxies', count: Number(r?.n ?? 0) };
    });
    const timeoutMs = identity.proxyTimeoutMs ?? 10_000;
    // Sessions reach proxies through `routing` (the session manager's ProxyHooks, compose.ts).
    ctx.onStop(() => routing.closeAll());
    // A check connects where a tenant said: held to the egress policy its sessions get.
    const policy = ctx.tenantEgress;
    const defaultCheckUrl = identity.proxyCheckUrl ?? ctx.config.env.BROWSERDECK_PROXY_CHECK_URL ?? DEFAULT_CHECK_URL;

    route(app, 'POST /proxies', async (req) => proxies.dto(await proxies.create(req.auth.orgId, req.auth.projectId, req.body)));
    route(app, 'GET /proxies', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = await proxies.list(req.auth.projectId, { ...page, name: q.name, query: q.query });
      return sendPage(reply, rows, page).map((r) => proxies.dto(r));
    });
    route(app, 'GET /proxies/:id', async (req) => proxies.dto(await proxies.get(req.auth.projectId, req.params.id)));
    route(app, 'PATCH /proxies/:id', async (req) => proxies.dto(await proxies.rename(req.auth.projectId, req.params.id, req.body.name)));
    route(app, 'DELETE /proxies/:id', async (req, reply) => {
      await proxies.delete(req.auth.projectId, req.params.id);
      return reply.status(204).send();
    });
    route(app, 'POST /proxies/:id/check', async (req) => {
      const row = await proxies.get(req.auth.projectId, req.params.id);
      const url = checkTarget(req.body?.url);
      const upstream = proxies.upstreamOf(row);
      const rotating = row.type === 'residential' || row.type === 'mobile';
      const result =
        rotating && !url
          ? await checkConnectivity(upstream, timeoutMs, policy)
          : await checkThroughProxy(upstream, url ?? defaultCheckUrl, timeoutMs, policy, proxies.caBundleOf(row));
      if (result.reason) req.log.info({ proxy_id: row.id, reason: result.reason }, 'proxy check: unavailable');
      const outcome = {
        status: result.status,
        status_reason: result.status === 'unavailable' ? checkReason(result.reason, upstream) : null,
        ip_address: result.ip_address,
        last_checked: ctx.clock.now().toISOString(),
      };
      // A check against a caller's URL answers about that target only; the stored health stays.
      if (url) return proxies.dto({ ...row, ...outcome });
      return proxies.dto(await proxies.recordCheck(row, outcome));
    });
  },
};
