/**
 * `/org/projects`: create, list, get by id or name, patch, delete. A project-scoped key lists
 * and reads only its own project; creating, changing and deleting projects need an org-wide
 * key (see `domain/org/access.ts`).
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { projectDto } from '../domain/org/projects.js';
import { confinedProject, getVisibleProject, orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';
import { route } from '../route.js';

export const projectsFeature: Feature = {
  name: 'projects',
  register(app, ctx) {
    route(app, 'POST /org/projects', { onRequest: orgWideKeyFirst('creating a project') }, async (req) => {
      return projectDto(await ctx.projects.create(req.auth.orgId, req.body.name));
    });
    route(
      app,
      'GET /org/projects', // Not async: a cached listing is answered without a promise (the hottest org read).
      (req, reply) => {
        const q = req.query;
        const page = pageOf(q);
        requireApiKey(req.auth);
        const rows = ctx.projects.list(req.auth.orgId, {
          offset: page.offset,
          limit: page.limit,
          query: q.query,
          name: q.name,
          onlyId: confinedProject(req.auth) ?? undefined,
        });
        if (Array.isArray(rows)) return sendPage(reply, rows, page).map(projectDto);
        return rows.then((r) => sendPage(reply, r, page).map(projectDto));
      },
    );
    route(app, 'GET /org/projects/:id', async (req) => {
      requireApiKey(req.auth);
      return projectDto(await getVisibleProject(ctx.projects, req.auth, req.params.id));
    });
    route(app, 'PATCH /org/projects/:id', { onRequest: orgWideKeyFirst('changing a project') }, async (req) => {
      return projectDto(await ctx.projects.update(req.auth.orgId, req.params.id, req.body ?? {}));
    });
    route(app, 'DELETE /org/projects/:id', { onRequest: orgWideKeyFirst('deleting a project') }, async (req, reply) => {
      await ctx.projects.delete(req.auth.orgId, req.params.id);
      return reply.status(204).send();
    });
  },
};
