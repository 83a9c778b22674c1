/**
 * `/org/api_keys`: create (plaintext once), list (masked, filtered, sorted, offset-paginated),
 * get, rename, delete (never the calling key) and rotate. Rules live in
 * `domain/org/api-key-admin.ts`; this module validates and shapes.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { ApiKeyAdmin } from '../domain/org/api-key-admin.js';
import type { ApiKeyListQuery } from '../domain/org/api-key-records.js';
import { apiKeyFirst } from '../domain/org/access.js';
import { route } from '../route.js';

export const apiKeysFeature: Feature = {
  name: 'api-keys',
  register(app, ctx) {
    const keys = new ApiKeyAdmin(ctx.db, ctx.clock, ctx.apiKeys, ctx.projects, ctx.changes);
    // A project with live keys is not empty: deleting it would leave keys scoped to nothing.
    ctx.projects.addUsageCounter(async (projectId) => ({ what: 'API keys', count: await keys.liveKeysOf(projectId) }));

    route(app, 'POST /org/api_keys', { onRequest: apiKeyFirst }, async (req) => keys.create(req.auth, req.body));

    route(app, 'GET /org/api_keys', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const query: Omit<ApiKeyListQuery, 'projectId'> = {
        ...page,
        status: q.status ?? (q.include_deleted ? 'all' : 'active'),
        name: q.name,
        query: q.query,
        sortBy: q.sort_by ?? 'created_at',
        sortDirection: q.sort_direction ?? 'desc',
      };
      return sendPage(reply, await keys.list(req.auth, query), page);
    });

    route(app, 'GET /org/api_keys/:id', async (req) => keys.get(req.auth, req.params.id, req.query.include_deleted ?? false));

    route(app, 'PATCH /org/api_keys/:id', { onRequest: apiKeyFirst }, async (req) => keys.rename(req.auth, req.params.id, req.body.name));

    route(app, 'DELETE /org/api_keys/:id', async (req, reply) => {
      await keys.delete(req.auth, req.params.id);
      return reply.status(204).send();
    });

    route(app, 'POST /org/api_keys/:id/rotate', { onRequest: apiKeyFirst }, async (req) => keys.rotate(req.auth, req.params.id, req.body ?? {}));
  },
};
