/**
 * `/credentials`: create, get (id or name), list, patch, delete, and the current TOTP code.
 * Values are write-only: responses name the stored keys, never the values.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { route } from '../route.js';

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

    route(app, 'POST /credentials', async (req) => credentials.create(req.auth.orgId, req.auth.projectId, req.body));
    route(app, 'GET /credentials', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = await credentials.list(req.auth.projectId, { ...page, domain: q.domain, query: q.query });
      return sendPage(reply, rows, page).map((r) => credentials.dto(r));
    });
    route(app, 'GET /credentials/:id_or_name', async (req) =>
      credentials.dto(await credentials.get(req.auth.projectId, req.params.id_or_name), { single: true }),
    );
    route(app, 'PATCH /credentials/:id_or_name', async (req) => credentials.update(req.auth.projectId, req.params.id_or_name, req.body ?? {}));
    route(app, 'DELETE /credentials/:id_or_name', async (req, reply) => {
      await credentials.delete(req.auth.projectId, req.params.id_or_name);
      return reply.status(204).send();
    });
    route(app, 'GET /credentials/:id_or_name/totp-code', async (req) => credentials.totpCode(req.auth.projectId, req.params.id_or_name));
  },
};
