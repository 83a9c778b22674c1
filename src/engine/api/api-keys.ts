/**
 * `/org/api_keys`: create (plaintext once), list (masked, filtered, sorted, offset-paginated),
 * get, rename, delete (never the calling key) and rotate. Rules live in
 * `domain/org/api-key-admin.ts`; this module validates and shapes.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import {
  ApiKeyCreateSchema,
  ApiKeyGetQuerySchema,
  ApiKeyIdParamSchema as IdParam,
  ApiKeyListQuerySchema,
  ApiKeyListSchema,
  ApiKeyRenameSchema,
  ApiKeyRotateSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
} from '../../shared/wire/org.js';
import { ApiKeyAdmin } from '../domain/org/api-key-admin.js';
import type { ApiKeyListQuery } from '../domain/org/api-key-records.js';
import { apiKeyFirst } from '../domain/org/access.js';

export const apiKeysFeature: Feature = {
  name: 'api-keys',
  register(app, ctx) {
    const keys = new ApiKeyAdmin(ctx.db, ctx.clock, ctx.apiKeys, ctx.projects, ctx.changes);
    // A project with live keys is not empty: deleting it would leave keys scoped to nothing.
    ctx.projects.addUsageCounter(async (projectId) => ({ what: 'API keys', count: await keys.liveKeysOf(projectId) }));
    const tags = ['api-keys'];

    app.post(
      '/org/api_keys',
      {
        schema: {
          tags,
          body: ApiKeyCreateSchema,
          response: { 200: CreatedApiKeySchema },
        },
        onRequest: apiKeyFirst,
      },
      async (req) => keys.create(req.auth, req.body),
    );

    app.get('/org/api_keys', { schema: { tags, querystring: ApiKeyListQuerySchema, response: { 200: ApiKeyListSchema } } }, async (req, reply) => {
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

    app.get('/org/api_keys/:id', { schema: { tags, params: IdParam, querystring: ApiKeyGetQuerySchema, response: { 200: ApiKeySchema } } }, async (req) =>
      keys.get(req.auth, req.params.id, req.query.include_deleted ?? false),
    );

    app.patch(
      '/org/api_keys/:id',
      { schema: { tags, params: IdParam, body: ApiKeyRenameSchema, response: { 200: ApiKeySchema } }, onRequest: apiKeyFirst },
      async (req) => keys.rename(req.auth, req.params.id, req.body.name),
    );

    app.delete('/org/api_keys/:id', { schema: { tags, params: IdParam } }, async (req, reply) => {
      await keys.delete(req.auth, req.params.id);
      return reply.status(204).send();
    });

    app.post(
      '/org/api_keys/:id/rotate',
      {
        schema: {
          tags,
          params: IdParam,
          body: ApiKeyRotateSchema,
          response: { 200: CreatedApiKeySchema },
        },
        onRequest: apiKeyFirst,
      },
      async (req) => keys.rotate(req.auth, req.params.id, req.body ?? {}),
    );
  },
};
