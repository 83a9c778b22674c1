/**
 * `/org/projects`: create, list, get by id or name, patch, delete. A project-scoped key lists
 * and reads only its own project; creating, changing and deleting projects need an org-wide
 * key (see `domain/org/access.ts`).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import { projectDto } from '../domain/org/projects.js';
import { ProjectSchema } from '../../shared/wire/org.js';
import { confinedProject, getVisibleProject, orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1020 }) });

export const projectsFeature: Feature = {
  name: 'projects',
  register(app: FastifyInstance, ctx) {
    const tags = ['projects'];
    app.post(
      '/org/projects',
      { schema: { tags, body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 1020 }) }, { additionalProperties: false }), response: { 200: ProjectSchema } }, onRequest: orgWideKeyFirst('creating a project') },
      async (req) => {
        return projectDto(await ctx.projects.create(req.auth.orgId, (req.body as { name: string }).name));
      },
    );
    app.get(
      '/org/projects',
      {
        schema: {
          tags,
          querystring: Type.Object({ ...OffsetQuery, query: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }),
          response: { 200: Type.Array(ProjectSchema) },
        },
      },
      // Not async: a cached listing is answered without a promise (the hottest org read).
      (req, reply) => {
        const q = req.query as { offset?: number; limit?: number; query?: string; name?: string };
        const page = pageOf(q);
        requireApiKey(req.auth);
        const rows = ctx.projects.list(req.auth.orgId, { offset: page.offset, limit: page.limit, query: q.query, name: q.name, onlyId: confinedProject(req.auth) ?? undefined });
        if (Array.isArray(rows)) return sendPage(reply, rows, page).map(projectDto);
        return rows.then((r) => sendPage(reply, r, page).map(projectDto));
      },
    );
    app.get('/org/projects/:id', { schema: { tags, params: IdParam, response: { 200: ProjectSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return projectDto(await getVisibleProject(ctx.projects, req.auth, (req.params as { id: string }).id));
    });
    app.patch(
      '/org/projects/:id',
      {
        schema: {
          tags,
          params: IdParam,
          body: Type.Optional(
            Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 1020 })), status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])) }, { additionalProperties: false }),
          ),
          response: { 200: ProjectSchema },
        },
        onRequest: orgWideKeyFirst('changing a project'),
      },
      async (req) => {
        return projectDto(await ctx.projects.update(req.auth.orgId, (req.params as { id: string }).id, (req.body ?? {}) as object));
      },
    );
    app.delete('/org/projects/:id', { schema: { tags, params: IdParam }, onRequest: orgWideKeyFirst('deleting a project') }, async (req, reply) => {
      await ctx.projects.delete(req.auth.orgId, (req.params as { id: string }).id);
      return reply.status(204).send();
    });
  },
};
