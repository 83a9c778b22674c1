/**
 * `/profiles`: create, list, get/patch/delete by id or name, download as tar or tar.zst.
 * Also registers `ctx.services.profiles` (ProfileService) for the session manager and a
 * project usage counter so a project with profiles is not "empty".
 */
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import { OffsetQuery, pageOf, sendPage } from '../http/pagination.js';
import { ApiError } from '../http/api-error.js';
import { ProfileSchema } from '../../shared/wire/profiles.js';
import { Profiles, profileDto, type Scope } from '../domain/profiles/profiles.js';
import { ProfileStore, STORED_FORMAT, type ProfileArchiveFormat } from '../domain/profiles/profile-store.js';
import { profileService } from '../domain/profiles/profile-binding.js';

const IdParam = Type.Object({ id_or_name: Type.String({ minLength: 1, maxLength: 255 }) });
const NameField = Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9._-]+$' });

function scopeOf(req: FastifyRequest): Scope {
  return { orgId: req.auth.orgId, projectId: req.auth.projectId };
}

export const profilesFeature: Feature = {
  name: 'profiles',
  register(app: FastifyInstance, ctx) {
    const profiles = new Profiles(ctx.db, ctx.clock, new ProfileStore(path.join(ctx.config.dataDir, 'profiles')));
    ctx.services.profiles = profileService(profiles);
    ctx.projects.addUsageCounter(async (projectId) => ({ what: 'profiles', count: await profiles.countInProject(projectId) }));
    const tags = ['profiles'];
    const idOf = (req: FastifyRequest) => (req.params as { id_or_name: string }).id_or_name;

    app.post(
      '/profiles',
      { schema: { tags, body: Type.Object({ name: Type.Optional(NameField) }), response: { 200: ProfileSchema } } },
      async (req) => profileDto(await profiles.create(scopeOf(req), (req.body as { name?: string }).name)),
    );
    app.get(
      '/profiles',
      {
        schema: {
          tags,
          querystring: Type.Object({ ...OffsetQuery, name: Type.Optional(Type.String()), query: Type.Optional(Type.String()) }),
          response: { 200: Type.Array(ProfileSchema) },
        },
      },
      async (req, reply) => {
        const q = req.query as { offset?: number; limit?: number; name?: string; query?: string };
        const page = pageOf(q);
        const rows = await profiles.list(scopeOf(req), { ...page, name: q.name, query: q.query });
        return sendPage(reply, rows, page).map(profileDto);
      },
    );
    app.get('/profiles/:id_or_name', { schema: { tags, params: IdParam, response: { 200: ProfileSchema } } }, async (req) =>
      profileDto(await profiles.get(scopeOf(req), idOf(req))),
    );
    app.patch(
      '/profiles/:id_or_name',
      { schema: { tags, params: IdParam, body: Type.Object({ name: NameField }), response: { 200: ProfileSchema } } },
      async (req) => profileDto(await profiles.rename(scopeOf(req), idOf(req), (req.body as { name: string }).name)),
    );
    app.delete('/profiles/:id_or_name', { schema: { tags, params: IdParam } }, async (req, reply) => {
      await profiles.delete(scopeOf(req), idOf(req));
      return reply.status(204).send();
    });
    app.get(
      '/profiles/:id_or_name/download',
      { schema: { tags, params: IdParam, querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('tar.zst'), Type.Literal('tar')])) }) } },
      async (req, reply) => {
        const p = await profiles.get(scopeOf(req), idOf(req));
        const format: ProfileArchiveFormat = (req.query as { format?: ProfileArchiveFormat }).format ?? STORED_FORMAT;
        if (format === 'tar.zst' && !profiles.store.hasZstd()) {
          throw ApiError.unprocessable('tar.zst needs the zstd tool, which is not installed on this engine; use format=tar', 'zstd_unavailable');
        }
        const stream = await profiles.store.archive(p.id, format);
        const filename = `${p.name ?? p.id}.${format}`;
        reply.header('content-type', format === 'tar' ? 'application/x-tar' : 'application/zstd');
        reply.header('content-disposition', `attachment; filename="${filename}"`);
        return reply.send(stream);
      },
    );
  },
};
