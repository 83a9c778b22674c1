/**
 * `/org/api_keys`: create (plaintext once), list (masked, filtered, sorted, offset-paginated),
 * get, rename, delete (never the calling key) and rotate. Rules live in
 * `domain/org/api-key-admin.ts`; this module validates and shapes.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import { ApiKeySchema, CreatedApiKeySchema } from '../../shared/wire/org.js';
import { ApiKeyAdmin, MAX_KEY_DAYS } from '../domain/org/api-key-admin.js';
import type { ApiKeyListQuery, ApiKeySortBy, ApiKeyStatus } from '../domain/org/api-key-records.js';
import { apiKeyFirst } from '../domain/org/access.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
// 1–255 code points is checked in the domain; 1020 UTF-16 units bounds what can reach it.
const Name = Type.String({ minLength: 1, maxLength: 1020 });
const Lifetime = Type.Union([Type.Integer({ minimum: 1, maximum: MAX_KEY_DAYS }), Type.Null()], { description: 'days until expiry, 1–3650; null = never' });
const Grace = Type.Union([Type.Integer({ minimum: 0, maximum: MAX_KEY_DAYS }), Type.Null()], { description: 'days before the rotated key expires; 0 = now; omitted/null = 7' });

const ListQuery = Type.Object({
  ...OffsetQuery,
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('deleted'), Type.Literal('all')], { description: 'active (default; includes expired keys), deleted, all' })),
  include_deleted: Type.Optional(Type.Boolean({ description: 'deprecated: use status=all' })),
  name: Type.Optional(Type.String({ maxLength: 1020 })),
  query: Type.Optional(Type.String({ maxLength: 1020 })),
  sort_by: Type.Optional(Type.Union([Type.Literal('created_at'), Type.Literal('name'), Type.Literal('expires_at')], { description: 'default created_at' })),
  sort_direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'default desc' })),
});

interface ListQueryIn {
  offset?: number;
  limit?: number;
  status?: ApiKeyStatus;
  include_deleted?: boolean;
  name?: string;
  query?: string;
  sort_by?: ApiKeySortBy;
  sort_direction?: 'asc' | 'desc';
}

export const apiKeysFeature: Feature = {
  name: 'api-keys',
  register(app: FastifyInstance, ctx) {
    const keys = new ApiKeyAdmin(ctx.db, ctx.clock, ctx.apiKeys, ctx.projects);
    // A project with live keys is not empty: deleting it would leave keys scoped to nothing.
    ctx.projects.addUsageCounter(async (projectId) => ({ what: 'API keys', count: await keys.liveKeysOf(projectId) }));
    const tags = ['api-keys'];
    const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;

    app.post(
      '/org/api_keys',
      {
        schema: {
          tags,
          body: Type.Object({ name: Name, days_to_expire: Type.Optional(Lifetime), project_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1020 }), Type.Null()])) }, { additionalProperties: false }),
          response: { 200: CreatedApiKeySchema },
        },
        onRequest: apiKeyFirst,
      },
      async (req) => keys.create(req.auth, req.body as { name: string; days_to_expire?: number | null; project_id?: string | null }),
    );

    app.get('/org/api_keys', { schema: { tags, querystring: ListQuery, response: { 200: Type.Array(ApiKeySchema) } } }, async (req, reply) => {
      const q = req.query as ListQueryIn;
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

    app.get(
      '/org/api_keys/:id',
      { schema: { tags, params: IdParam, querystring: Type.Object({ include_deleted: Type.Optional(Type.Boolean()) }), response: { 200: ApiKeySchema } } },
      async (req) => keys.get(req.auth, idOf(req), (req.query as { include_deleted?: boolean }).include_deleted ?? false),
    );

    app.patch(
      '/org/api_keys/:id',
      { schema: { tags, params: IdParam, body: Type.Object({ name: Name }, { additionalProperties: false }), response: { 200: ApiKeySchema } }, onRequest: apiKeyFirst },
      async (req) => keys.rename(req.auth, idOf(req), (req.body as { name: string }).name),
    );

    app.delete('/org/api_keys/:id', { schema: { tags, params: IdParam } }, async (req, reply) => {
      await keys.delete(req.auth, idOf(req));
      return reply.status(204).send();
    });

    app.post(
      '/org/api_keys/:id/rotate',
      {
        schema: {
          tags,
          params: IdParam,
          body: Type.Optional(Type.Object({ days_to_expire: Type.Optional(Lifetime), expire_in_days: Type.Optional(Grace) }, { additionalProperties: false })),
          response: { 200: CreatedApiKeySchema },
        },
        onRequest: apiKeyFirst,
      },
      async (req) => keys.rotate(req.auth, idOf(req), (req.body ?? {}) as { days_to_expire?: number | null; expire_in_days?: number | null }),
    );
  },
};
