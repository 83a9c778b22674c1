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
import { route } from '../route.js';

export const credentialProvidersFeature: Feature<'credentialProviders'> = {
  name: 'credential-providers',
  register(app, _ctx, { credentialProviders: service }) {
    const records = service.records;
    const configuring = orgWideKeyFirst('configuring credential providers');

    route(app, 'POST /org/credential_providers', { onRequest: configuring }, async (req) => {
      return CredentialProviders.dto(await records.create(req.auth.orgId, req.body));
    });
    route(app, 'GET /org/credential_providers', async (req, reply) => {
      requireApiKey(req.auth);
      const q = req.query;
      const page = pageOf(q);
      return sendPage(reply, await records.list(req.auth.orgId, { ...page, query: q.query }), page).map(CredentialProviders.dto);
    });
    route(app, 'GET /org/credential_providers/:id', async (req) => {
      requireApiKey(req.auth);
      return CredentialProviders.dto(await records.get(req.auth.orgId, req.params.id));
    });
    route(app, 'PATCH /org/credential_providers/:id', { onRequest: configuring }, async (req) => {
      return CredentialProviders.dto(await records.update(req.auth.orgId, req.params.id, req.body ?? {}));
    });
    route(app, 'DELETE /org/credential_providers/:id', { onRequest: configuring }, async (req, reply) => {
      const row = await records.delete(req.auth.orgId, req.params.id);
      service.forget(row.id);
      return reply.status(204).send();
    });
    route(app, 'GET /org/credential_providers/:id/items', async (req) => {
      requireApiKey(req.auth);
      return { items: await service.items(await records.get(req.auth.orgId, req.params.id)) };
    });
    route(app, 'POST /org/credential_providers/:id/test', async (req) => {
      requireApiKey(req.auth);
      return service.test(await records.get(req.auth.orgId, req.params.id));
    });
  },
};
