/**
 * `/credentials`: create, get (id or name), list, patch, delete, and the current TOTP code.
 * Values are write-only: responses name the stored keys, never the values.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import { Credentials, type CredentialCreate, type CredentialPatch } from '../domain/credentials/credentials.js';
import { secretsOf } from '../domain/secrets/secrets-service.js';
import { CredentialSchema, TotpCodeSchema } from '../../shared/wire/identity.js';

const IdParam = Type.Object({ id_or_name: Type.String({ minLength: 1 }) });
const Values = Type.Record(Type.String({ minLength: 1, maxLength: 255 }), Type.String({ maxLength: 65536 }), { maxProperties: 100 });

export const credentialsFeature: Feature = {
  name: 'credentials',
  async register(app: FastifyInstance, ctx) {
    const credentials = new Credentials(ctx.db, ctx.clock, await secretsOf(ctx));
    ctx.services.credentials = credentials;
    ctx.projects.addUsageCounter(async (projectId) => {
      const r = await ctx.db.selectFrom('credentials').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirst();
      return { what: 'credentials', count: Number(r?.n ?? 0) };
    });
    const tags = ['credentials'];

    app.post(
      '/credentials',
      {
        schema: {
          tags,
          body: Type.Object({
            domain: Type.String({ minLength: 1, maxLength: 2048 }),
            name: Type.String({ minLength: 1, maxLength: 1020 }),
            values: Values,
            sso_provider: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
            totp_secret: Type.Optional(Type.String({ maxLength: 1024 })),
          }),
          response: { 200: CredentialSchema },
        },
      },
      async (req) => credentials.create(req.auth.orgId, req.auth.projectId, req.body as CredentialCreate),
    );
    app.get(
      '/credentials',
      {
        schema: {
          tags,
          querystring: Type.Object({ ...OffsetQuery, domain: Type.Optional(Type.String()), query: Type.Optional(Type.String()) }),
          response: { 200: Type.Array(CredentialSchema) },
        },
      },
      async (req, reply) => {
        const q = req.query as { offset?: number; limit?: number; domain?: string; query?: string };
        const page = pageOf(q);
        const rows = await credentials.list(req.auth.projectId, { ...page, domain: q.domain, query: q.query });
        return sendPage(reply, rows, page).map((r) => credentials.dto(r));
      },
    );
    app.get('/credentials/:id_or_name', { schema: { tags, params: IdParam, response: { 200: CredentialSchema } } }, async (req) =>
      credentials.dto(await credentials.get(req.auth.projectId, (req.params as { id_or_name: string }).id_or_name), { single: true }),
    );
    app.patch(
      '/credentials/:id_or_name',
      {
        schema: {
          tags,
          params: IdParam,
          body: Type.Object({
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 1020 })),
            remove_value_keys: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
            sso_provider: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
            totp_secret: Type.Optional(Type.String({ maxLength: 1024 })),
            values: Type.Optional(Values),
          }),
          response: { 200: CredentialSchema },
        },
      },
      async (req) => credentials.update(req.auth.projectId, (req.params as { id_or_name: string }).id_or_name, (req.body ?? {}) as CredentialPatch),
    );
    app.delete('/credentials/:id_or_name', { schema: { tags, params: IdParam } }, async (req, reply) => {
      await credentials.delete(req.auth.projectId, (req.params as { id_or_name: string }).id_or_name);
      return reply.status(204).send();
    });
    app.get('/credentials/:id_or_name/totp-code', { schema: { tags, params: IdParam, response: { 200: TotpCodeSchema } } }, async (req) =>
      credentials.totpCode(req.auth.projectId, (req.params as { id_or_name: string }).id_or_name),
    );
  },
};
