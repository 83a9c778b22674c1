/**
 * Project limit overrides: `GET/PATCH /org/projects/{id}/limits` (id or name), plus the
 * deprecated `PATCH /projects/{id}/limits`, which behaves the same and announces its end with
 * `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers until the sunset instant, and
 * answers `410 Gone` naming the new route from then on. "Now" is the engine's injected clock.
 */
import type { FastifyReply } from 'fastify';
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { projectLimitsDto } from '../domain/org/limits.js';
import { getVisibleProject, orgWideKeyFirst } from '../domain/org/access.js';
import { route } from '../route.js';

/** When the old route stops working (from the product's deprecation notice). */
export const LEGACY_LIMITS_SUNSET = new Date('2026-11-24T00:00:00Z');
/** When it was marked deprecated; the notice names only the sunset, so we date it a year earlier. */
export const LEGACY_LIMITS_DEPRECATED = new Date('2025-11-24T00:00:00Z');

export const projectLimitsFeature: Feature<'limits'> = {
  name: 'project-limits',
  register(app, ctx, { limits }) {
    const orgWideKey = orgWideKeyFirst('changing project limits');

    route(app, 'GET /org/projects/:id/limits', async (req) => {
      return projectLimitsDto(await getVisibleProject(ctx.projects, req.auth, req.params.id));
    });

    route(app, 'PATCH /org/projects/:id/limits', { onRequest: orgWideKey }, async (req) =>
      limits.updateProjectLimits(req.auth.orgId, req.params.id, req.body ?? {}),
    );

    route(app, 'PATCH /projects/:id/limits', { onRequest: [async (req, reply) => legacyRouteNotice(ctx, req.params.id, reply), orgWideKey] }, async (req) =>
      limits.updateProjectLimits(req.auth.orgId, req.params.id, req.body ?? {}),
    );
  },
};

/** Runs before body parsing and validation, so after the sunset every call is a 410. */
function legacyRouteNotice(ctx: EngineContext, projectId: string | undefined, reply: FastifyReply): void {
  const id = encodeURIComponent(projectId ?? '{id}');
  reply.header('Link', `</org/projects/${id}/limits>; rel="successor-version"`);
  if (ctx.clock.now().getTime() >= LEGACY_LIMITS_SUNSET.getTime()) {
    throw new ApiError(410, 'gone', `PATCH /projects/{id}/limits was removed on ${LEGACY_LIMITS_SUNSET.toISOString()}; use PATCH /org/projects/{id}/limits`);
  }
  reply.header('Deprecation', `@${Math.floor(LEGACY_LIMITS_DEPRECATED.getTime() / 1000)}`);
  reply.header('Sunset', LEGACY_LIMITS_SUNSET.toUTCString());
}
