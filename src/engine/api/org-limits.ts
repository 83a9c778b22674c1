/**
 * `GET/PATCH /org/limits`: the organization's concurrency cap (engine configuration,
 * read-only) and its default per-project session cap (0 or null removes it; it may not
 * exceed the organization cap). Also registers `ctx.services.limits` for other features.
 */
import type { Feature } from '../feature.js';
import { OrgLimitsPatchSchema, OrgLimitsSchema } from '../../shared/wire/org.js';
import { limitsService } from '../domain/org/limits.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';

export const orgLimitsFeature: Feature = {
  name: 'org-limits',
  register(app, ctx) {
    const limits = limitsService(ctx);
    const tags = ['organization'];
    app.get('/org/limits', { schema: { tags, response: { 200: OrgLimitsSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return limits.orgLimits(req.auth.orgId);
    });
    app.patch(
      '/org/limits',
      { schema: { tags, body: OrgLimitsPatchSchema, response: { 200: OrgLimitsSchema } }, onRequest: orgWideKeyFirst('changing organization limits') },
      async (req) => {
        return limits.updateOrgLimits(req.auth.orgId, req.body ?? {});
      },
    );
  },
};
