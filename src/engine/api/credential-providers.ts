/**
 * `/org/credential_providers`: an organization's external password managers (1Password).
 * CRUD (writes need an org-wide key), the item list, and the connection test. The token is
 * accepted on create/patch and never answered; `test` always answers a result (success false
 * with the reason when the provider cannot be used), `items` an Error object (502/503).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';
import { secretsOf } from '../domain/secrets/secrets-service.js';
import { CredentialProviders, DEFAULT_CACHE_TTL_SECONDS, type ProviderCreate, type ProviderPatch } from '../domain/credential-providers/credential-providers.js';
import { ProviderAccess } from '../domain/credential-providers/provider-access.js';
import { ProviderService } from '../domain/credential-providers/provider-service.js';
import { OnePasswordAdapter } from '../domain/credential-providers/onepassword-adapter.js';
import { CredentialProviderItemsSchema, CredentialProviderSchema, CredentialProviderTestResultSchema } from '../../shared/wire/credential-providers.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1 }) });
const Token = Type.String({ minLength: 1, maxLength: 16384, description: 'service account token (write-only)' });
const Ttl = Type.Integer({ minimum: 0, maximum: 86400 });
const DEFAULT_TIMEOUT_MS = 15_000;

export const credentialProvidersFeature: Feature = {
  name: 'credential-providers',
  async register(app: FastifyInstance, ctx) {
    const records = new CredentialProviders(ctx.db, ctx.clock, await secretsOf(ctx));
    const access = new ProviderAccess({
      clock: ctx.clock,
      timeoutMs: ctx.config.identity.credentialProviderTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      tokenOf: (row) => records.tokenOf(row),
      adapterFor: (_type, token) => new OnePasswordAdapter(token),
    });
    const service = new ProviderService(records, access);
    ctx.services.credentialProviders = service;
    const tags = ['credential providers'];
    const idOf = (req: { params: unknown }) => (req.params as { id: string }).id;
    const configuring = orgWideKeyFirst('configuring credential providers');

    app.post(
      '/org/credential_providers',
      {
        schema: {
          tags,
          body: Type.Object({
            token: Token,
            name: Type.String({ minLength: 1, maxLength: 1020 }),
            // A plain string so an unknown type gets the message naming the supported ones.
            provider_type: Type.String({ description: "'onepassword'" }),
            cache_ttl_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400, default: DEFAULT_CACHE_TTL_SECONDS })),
          }),
          response: { 200: CredentialProviderSchema },
        },
        onRequest: configuring,
      },
      async (req) => {
        return CredentialProviders.dto(await records.create(req.auth.orgId, req.body as ProviderCreate));
      },
    );
    app.get(
      '/org/credential_providers',
      { schema: { tags, querystring: Type.Object({ ...OffsetQuery, query: Type.Optional(Type.String()) }), response: { 200: Type.Array(CredentialProviderSchema) } } },
      async (req, reply) => {
        requireApiKey(req.auth);
        const q = req.query as { offset?: number; limit?: number; query?: string };
        const page = pageOf(q);
        return sendPage(reply, await records.list(req.auth.orgId, { ...page, query: q.query }), page).map(CredentialProviders.dto);
      },
    );
    app.get('/org/credential_providers/:id', { schema: { tags, params: IdParam, response: { 200: CredentialProviderSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return CredentialProviders.dto(await records.get(req.auth.orgId, idOf(req)));
    });
    app.patch(
      '/org/credential_providers/:id',
      {
        schema: {
          tags,
          params: IdParam,
          body: Type.Object({
            token: Type.Optional(Token),
            cache_ttl_seconds: Type.Optional(Ttl),
            enabled: Type.Optional(Type.Boolean()),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 1020 })),
            priority: Type.Optional(Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 })),
          }),
          response: { 200: CredentialProviderSchema },
        },
        onRequest: configuring,
      },
      async (req) => {
        return CredentialProviders.dto(await records.update(req.auth.orgId, idOf(req), (req.body ?? {}) as ProviderPatch));
      },
    );
    app.delete('/org/credential_providers/:id', { schema: { tags, params: IdParam }, onRequest: configuring }, async (req, reply) => {
      const row = await records.delete(req.auth.orgId, idOf(req));
      service.forget(row.id);
      return reply.status(204).send();
    });
    app.get('/org/credential_providers/:id/items', { schema: { tags, params: IdParam, response: { 200: CredentialProviderItemsSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return { items: await service.items(await records.get(req.auth.orgId, idOf(req))) };
    });
    app.post('/org/credential_providers/:id/test', { schema: { tags, params: IdParam, response: { 200: CredentialProviderTestResultSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return service.test(await records.get(req.auth.orgId, idOf(req)));
    });
  },
};
