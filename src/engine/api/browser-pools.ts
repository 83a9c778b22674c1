/**
 * `/browser_pools`: create, list, get/patch/delete by id or name, and acquire (long-poll;
 * 204 when no browser became free in time), release and flush. Registers the pools'
 * concurrency reservations with the session manager and resumes this node's pools at start.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import { SessionSchema } from '../../shared/wire/sessions.js';
import { BrowserPoolSchema, PoolAcquireSchema, PoolCreateSchema, PoolDeleteSchema, PoolReleaseSchema, PoolUpdateSchema, type PoolAcquire, type PoolCreate, type PoolUpdate } from '../../shared/wire/pools.js';
import { PoolService } from '../domain/pools/pool-service.js';
import { getPool, listPools } from '../domain/pools/pool-records.js';

const IdParam = Type.Object({ id_or_name: Type.String({ minLength: 1, maxLength: 255 }) });

export const browserPoolsFeature: Feature = {
  name: 'browser-pools',
  register(app: FastifyInstance, ctx) {
    const pools = new PoolService(ctx);
    ctx.services.pools = pools;
    pools.install();
    ctx.onStop(() => pools.stop());
    const tags = ['browser_pools'];
    const idOf = (req: FastifyRequest) => (req.params as { id_or_name: string }).id_or_name;

    app.post('/browser_pools', { schema: { tags, body: PoolCreateSchema, response: { 200: BrowserPoolSchema } } }, async (req) =>
      pools.dto(await pools.create(req.auth, req.body as PoolCreate)),
    );
    app.get(
      '/browser_pools',
      {
        schema: {
          tags,
          querystring: Type.Object({ ...OffsetQuery, name: Type.Optional(Type.String()), query: Type.Optional(Type.String()) }),
          response: { 200: Type.Array(BrowserPoolSchema) },
        },
      },
      async (req, reply) => {
        const q = req.query as { offset?: number; limit?: number; name?: string; query?: string };
        const page = pageOf(q);
        const rows = sendPage(reply, await listPools(ctx.db, req.auth, { ...page, name: q.name, query: q.query }), page);
        return Promise.all(rows.map((r) => pools.dto(r)));
      },
    );
    app.get('/browser_pools/:id_or_name', { schema: { tags, params: IdParam, response: { 200: BrowserPoolSchema } } }, async (req) =>
      pools.dto(await getPool(ctx.db, req.auth, idOf(req))),
    );
    app.patch('/browser_pools/:id_or_name', { schema: { tags, params: IdParam, body: PoolUpdateSchema, response: { 200: BrowserPoolSchema } } }, async (req) =>
      pools.dto(await pools.update(req.auth, idOf(req), req.body as PoolUpdate)),
    );
    app.delete('/browser_pools/:id_or_name', { schema: { tags, params: IdParam, body: Type.Optional(PoolDeleteSchema) } }, async (req, reply) => {
      await pools.delete(req.auth, idOf(req), !!(req.body as { force?: boolean } | undefined)?.force);
      return reply.status(204).send();
    });
    app.post(
      '/browser_pools/:id_or_name/acquire',
      { schema: { tags, params: IdParam, body: PoolAcquireSchema, response: { 200: SessionSchema, 204: Type.Null({ description: 'no browser became free within acquire_timeout_seconds' }) } } },
      async (req, reply) => {
        const session = await pools.acquire(req.auth, idOf(req), req.body as PoolAcquire);
        if (!session) return reply.status(204).send();
        return session;
      },
    );
    app.post('/browser_pools/:id_or_name/release', { schema: { tags, params: IdParam, body: PoolReleaseSchema } }, async (req, reply) => {
      await pools.release(req.auth, idOf(req), req.body as { session_id: string; reuse?: boolean });
      return reply.status(204).send();
    });
    app.post('/browser_pools/:id_or_name/flush', { schema: { tags, params: IdParam } }, async (req, reply) => {
      await pools.flush(req.auth, idOf(req));
      return reply.status(204).send();
    });
  },
  async started(ctx) {
    await (ctx.services.pools as PoolService).resume();
  },
};
