/**
 * `/org/credential_providers`: an organization's external password managers (1Password).
 * CRUD (writes need an org-wide key), the item list, and the connection test. The token is
 * accepted on create/patch and never answered; `test` always answers a result (success false
 * with the reason when the provider cannot be used), `items` an Error object (502/503).
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';
import { CredentialProviders } from '../domain/credential-providers/credential-providers.js';
import {
  CredentialProviderCreateSchema,
  CredentialProviderIdParamSchema as IdParam,
  CredentialProviderItemsSchema,
  CredentialProviderListQuerySchema,
  CredentialProviderListSchema,
  CredentialProviderPatchSchema,
  CredentialProviderSchema,
  CredentialProviderTestResultSchema,
} from '../../shared/wire/credential-providers.js';

export const credentialProvidersFeature: Feature<'credentialProviders'> = {
  name: 'credential-providers',
  register(app, _ctx, { credentialProviders: service }) {
    const records = service.records;
    const tags = ['credential providers'];
    const configuring = orgWideKeyFirst('configuring credential providers');

    app.post(
      '/org/credential_providers',
      {
        schema: {
          tags,
          body: CredentialProviderCreateSchema,
          response: { 200: CredentialProviderSchema },
        },
        onRequest: configuring,
      },
      async (req) => {
        return CredentialProviders.dto(await records.create(req.auth.orgId, req.body));
      },
    );
    app.get(
      '/org/credential_providers',
      { schema: { tags, querystring: CredentialProviderListQuerySchema, response: { 200: CredentialProviderListSchema } } },
      async (req, reply) => {
        requireApiKey(req.auth);
        const q = req.query;
        const page = pageOf(q);
        return sendPage(reply, await records.list(req.auth.orgId, { ...page, query: q.query }), page).map(CredentialProviders.dto);
      },
    );
    app.get('/org/credential_providers/:id', { schema: { tags, params: IdParam, response: { 200: CredentialProviderSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return CredentialProviders.dto(await records.get(req.auth.orgId, req.params.id));
    });
    app.patch(
      '/org/credential_providers/:id',
      {
        schema: {
          tags,
          params: IdParam,
          body: CredentialProviderPatchSchema,
          response: { 200: CredentialProviderSchema },
        },
        onRequest: configuring,
      },
      async (req) => {
        return CredentialProviders.dto(await records.update(req.auth.orgId, req.params.id, req.body ?? {}));
      },
    );
    app.delete('/org/credential_providers/:id', { schema: { tags, params: IdParam }, onRequest: configuring }, async (req, reply) => {
      const row = await records.delete(req.auth.orgId, req.params.id);
      service.forget(row.id);
      return reply.status(204).send();
    });
    app.get('/org/credential_providers/:id/items', { schema: { tags, params: IdParam, response: { 200: CredentialProviderItemsSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return { items: await service.items(await records.get(req.auth.orgId, req.params.id)) };
    });
    app.post(
      '/org/credential_providers/:id/test',
      { schema: { tags, params: IdParam, response: { 200: CredentialProviderTestResultSchema } } },
      async (req) => {
        requireApiKey(req.auth);
        return service.test(await records.get(req.auth.orgId, req.params.id));
      },
    );
  },
};
