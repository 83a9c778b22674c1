/**
 * Project limit overrides: `GET/PATCH /org/projects/{id}/limits` (id or name), plus the
 * deprecated `PATCH /projects/{id}/limits`, which behaves the same and announces its end with
 * `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers until the sunset instant, and
 * answers `410 Gone` naming the new route from then on. "Now" is the engine's injected clock.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { ProjectLimitsSchema } from '../../shared/wire/org.js';
import { limitsService, projectLimitsDto, type ProjectLimitsPatch } from '../domain/org/limits.js';
import { getVisibleProject, orgWideKeyFirst } from '../domain/org/access.js';

/** When the old route stops working (from the product's deprecation notice). */
export const LEGACY_LIMITS_SUNSET = new Date('2026-11-24T00:00:00Z');
/** When it was marked deprecated; the notice names only the sunset, so we date it a year earlier. */
export const LEGACY_LIMITS_DEPRECATED = new Date('2025-11-24T00:00:00Z');

// PostgreSQL `integer` is 32-bit; anything larger is a client error, not a database error.
const Cap = Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], { description: '0 or null removes the cap; omitted = unchanged' }));
const LimitsBody = Type.Optional(Type.Object({ max_concurrent_sessions: Cap, max_concurrent_invocations: Cap, max_pooled_sessions: Cap }, { additionalProperties: false }));
const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1020 }) });

export const projectLimitsFeature: Feature = {
  name: 'project-limits',
  register(app: FastifyInstance, ctx) {
    const tags = ['projects'];
    const limits = limitsService(ctx);

    const orgWideKey = orgWideKeyFirst('changing project limits');
    const patch = async (req: FastifyRequest) => {
      return limits.updateProjectLimits(req.auth.orgId, (req.params as { id: string }).id, (req.body ?? {}) as ProjectLimitsPatch);
    };

    app.get('/org/projects/:id/limits', { schema: { tags, params: IdParam, response: { 200: ProjectLimitsSchema } } }, async (req) => {
      return projectLimitsDto(await getVisibleProject(ctx.projects, req.auth, (req.params as { id: string }).id));
    });

    app.patch('/org/projects/:id/limits', { schema: { tags, params: IdParam, body: LimitsBody, response: { 200: ProjectLimitsSchema } }, onRequest: orgWideKey }, patch);

    app.patch(
      '/projects/:id/limits',
      {
        schema: { tags, deprecated: true, params: IdParam, body: LimitsBody, response: { 200: ProjectLimitsSchema } },
        onRequest: [async (req, reply) => legacyRouteNotice(ctx, req, reply), orgWideKey],
      },
      patch,
    );
  },
};

/** Runs before body parsing and validation, so after the sunset every call is a 410. */
function legacyRouteNotice(ctx: EngineContext, req: FastifyRequest, reply: FastifyReply): void {
  const id = encodeURIComponent((req.params as { id?: string }).id ?? '{id}');
  reply.header('Link', `</org/projects/${id}/limits>; rel="successor-version"`);
  if (ctx.clock.now().getTime() >= LEGACY_LIMITS_SUNSET.getTime()) {
    throw new ApiError(410, 'gone', `PATCH /projects/{id}/limits was removed on ${LEGACY_LIMITS_SUNSET.toISOString()}; use PATCH /org/projects/{id}/limits`);
  }
  reply.header('Deprecation', `@${Math.floor(LEGACY_LIMITS_DEPRECATED.getTime() / 1000)}`);
  reply.header('Sunset', LEGACY_LIMITS_SUNSET.toUTCString());
}
