/**
 * `/credentials`: create, get (id or name), list, patch, delete, and the current TOTP code.
 * Values are write-only: responses name the stored keys, never the values.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import {
  CredentialCreateSchema,
  CredentialIdParamSchema as IdParam,
  CredentialListQuerySchema,
  CredentialListSchema,
  CredentialPatchSchema,
  CredentialSchema,
  TotpCodeSchema,
} from '../../shared/wire/identity.js';

export const credentialsFeature: Feature<'credentials'> = {
  name: 'credentials',
  register(app, ctx, { credentials }) {
    ctx.projects.addUsageCounter(async (projectId) => {
      const r = await ctx.db
        .selectFrom('credentials')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return { what: 'credentials', count: Number(r?.n ?? 0) };
    });
    const tags = ['credentials'];

    app.post(
      '/credentials',
      {
        schema: {
          tags,
          body: CredentialCreateSchema,
          response: { 200: CredentialSchema },
        },
      },
      async (req) => credentials.create(req.auth.orgId, req.auth.projectId, req.body),
    );
    app.get(
      '/credentials',
      {
        schema: {
          tags,
          querystring: CredentialListQuerySchema,
          response: { 200: CredentialListSchema },
        },
      },
      async (req, reply) => {
        const q = req.query;
        const page = pageOf(q);
        const rows = await credentials.list(req.auth.projectId, { ...page, domain: q.domain, query: q.query });
        return sendPage(reply, rows, page).map((r) => credentials.dto(r));
      },
    );
    app.get('/credentials/:id_or_name', { schema: { tags, params: IdParam, response: { 200: CredentialSchema } } }, async (req) =>
      credentials.dto(await credentials.get(req.auth.projectId, req.params.id_or_name), { single: true }),
    );
    app.patch(
      '/credentials/:id_or_name',
      {
        schema: {
          tags,
          params: IdParam,
          body: CredentialPatchSchema,
          response: { 200: CredentialSchema },
        },
      },
      async (req) => credentials.update(req.auth.projectId, req.params.id_or_name, req.body ?? {}),
    );
    app.delete('/credentials/:id_or_name', { schema: { tags, params: IdParam } }, async (req, reply) => {
      await credentials.delete(req.auth.projectId, req.params.id_or_name);
      return reply.status(204).send();
    });
    app.get('/credentials/:id_or_name/totp-code', { schema: { tags, params: IdParam, response: { 200: TotpCodeSchema } } }, async (req) =>
      credentials.totpCode(req.auth.projectId, req.params.id_or_name),
    );
  },
};
