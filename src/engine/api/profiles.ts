/**
 * `/profiles`: create, list, get/patch/delete by id or name, download as tar or tar.zst.
 * Also registers a project usage counter so a project with profiles is not "empty".
 */
import type { FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { ApiError } from '../http/api-error.js';
import { sendAsFile } from '../http/tenant-bytes.js';
import { profileDto, type Scope } from '../domain/profiles/profiles.js';
import { STORED_FORMAT, type ProfileArchiveFormat } from '../domain/profiles/profile-store.js';
import { route } from '../route.js';

function scopeOf(req: FastifyRequest): Scope {
  return { orgId: req.auth.orgId, projectId: req.auth.projectId };
}

export const profilesFeature: Feature<'profiles'> = {
  name: 'profiles',
  register(app, ctx, deps) {
    const profiles = deps.profiles.profiles;
    ctx.projects.addUsageCounter(async (projectId) => ({ what: 'profiles', count: await profiles.countInProject(projectId) }));

    route(app, 'POST /profiles', async (req) => profileDto(await profiles.create(scopeOf(req), req.body.name)));
    route(app, 'GET /profiles', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = await profiles.list(scopeOf(req), { ...page, name: q.name, query: q.query });
      return sendPage(reply, rows, page).map(profileDto);
    });
    route(app, 'GET /profiles/:id_or_name', async (req) => profileDto(await profiles.get(scopeOf(req), req.params.id_or_name)));
    route(app, 'PATCH /profiles/:id_or_name', async (req) => profileDto(await profiles.rename(scopeOf(req), req.params.id_or_name, req.body.name)));
    route(app, 'DELETE /profiles/:id_or_name', async (req, reply) => {
      await profiles.delete(scopeOf(req), req.params.id_or_name);
      return reply.status(204).send();
    });
    route(app, 'GET /profiles/:id_or_name/download', async (req, reply) => {
      const p = await profiles.get(scopeOf(req), req.params.id_or_name);
      const format: ProfileArchiveFormat = req.query.format ?? STORED_FORMAT;
      if (format === 'tar.zst' && !profiles.store.hasZstd()) {
        throw ApiError.unprocessable('tar.zst needs the zstd tool, which is not installed on this engine; use format=tar', 'zstd_unavailable');
      }
      const stream = await profiles.store.archive(p.id, format);
      const filename = `${p.name ?? p.id}.${format}`;
      return sendAsFile(reply, format === 'tar' ? 'application/x-tar' : 'application/zstd', filename).send(stream);
    });
  },
};
