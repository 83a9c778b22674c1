/**
 * `/browser_pools`: create, list, get/patch/delete by id or name, and acquire (long-poll;
 * 204 when no browser became free in time), release and flush. Registers the pools'
 * concurrency reservations with the session manager and resumes this node's pools at start.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { getPool, listPools } from '../domain/pools/pool-records.js';
import { route } from '../route.js';

export const browserPoolsFeature: Feature<'pools' | 'telemetryExports'> = {
  name: 'browser-pools',
  register(app, ctx, { pools, telemetryExports }) {
    pools.install();
    ctx.onStop(() => pools.stop());
    // `telemetry.export` names a destination of the caller's org (404), rewritten to its id; the pool's browsers export to it.
    const resolveExport = async (req: { auth: { orgId: string }; body?: { telemetry?: Parameters<typeof telemetryExports.resolveExportDestination>[1] } }) =>
      telemetryExports.resolveExportDestination(req.auth.orgId, req.body?.telemetry);

    route(app, 'POST /browser_pools', { preHandler: resolveExport }, async (req) => pools.dto(await pools.create(req.auth, req.body)));
    route(app, 'GET /browser_pools', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = sendPage(reply, await listPools(ctx.db, req.auth, { ...page, name: q.name, query: q.query, region: q.region }, ctx.store.dialect), page);
      return Promise.all(rows.map((r) => pools.dto(r)));
    });
    route(app, 'GET /browser_pools/:id_or_name', async (req) => pools.dto(await getPool(ctx.db, req.auth, req.params.id_or_name)));
    route(app, 'PATCH /browser_pools/:id_or_name', { preHandler: resolveExport }, async (req) =>
      pools.dto(await pools.update(req.auth, req.params.id_or_name, req.body)),
    );
    route(app, 'DELETE /browser_pools/:id_or_name', async (req, reply) => {
      await pools.delete(req.auth, req.params.id_or_name, !!req.body?.force);
      return reply.status(204).send();
    });
    route(app, 'POST /browser_pools/:id_or_name/acquire', { preHandler: resolveExport }, async (req, reply) => {
      const session = await pools.acquire(req.auth, req.params.id_or_name, req.body);
      if (!session) return reply.status(204).send(null);
      return session;
    });
    route(app, 'POST /browser_pools/:id_or_name/release', async (req, reply) => {
      await pools.release(req.auth, req.params.id_or_name, req.body);
      return reply.status(204).send();
    });
    route(app, 'POST /browser_pools/:id_or_name/flush', async (req, reply) => {
      await pools.flush(req.auth, req.params.id_or_name);
      return reply.status(204).send();
    });
  },
  async started(_ctx, { pools }) {
    await pools.resume();
  },
};
