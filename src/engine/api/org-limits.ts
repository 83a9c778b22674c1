/**
 * `GET/PATCH /org/limits`: the organization's concurrency cap (engine configuration,
 * read-only) and its default per-project session cap (0 or null removes it; it may not
 * exceed the organization cap). Also registers `ctx.services.limits` for other features.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import { OrgLimitsSchema } from '../../shared/wire/org.js';
import { limitsService } from '../domain/org/limits.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';

const Body = Type.Optional(
  Type.Object(
    {
      default_project_max_concurrent_sessions: Type.Optional(
        Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], { description: '0 or null removes the default; must not exceed max_concurrent_sessions' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const orgLimitsFeature: Feature = {
  name: 'org-limits',
  register(app: FastifyInstance, ctx) {
    const limits = limitsService(ctx);
    const tags = ['organization'];
    app.get('/org/limits', { schema: { tags, response: { 200: OrgLimitsSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return limits.orgLimits(req.auth.orgId);
    });
    app.patch('/org/limits', { schema: { tags, body: Body, response: { 200: OrgLimitsSchema } }, onRequest: orgWideKeyFirst('changing organization limits') }, async (req) => {
      return limits.updateOrgLimits(req.auth.orgId, (req.body ?? {}) as { default_project_max_concurrent_sessions?: number | null });
    });
  },
};
