/**
 * `GET/PATCH /org/limits`: the organization's concurrency cap (engine configuration,
 * read-only) and its default per-project session cap (0 or null removes it; it may not
 * exceed the organization cap), with the usage newer Kernel SDKs read (`domain/org/org-usage.ts`).
 */
import type { Feature } from '../feature.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';
import { withUsage, type OrgUsageSources } from '../domain/org/org-usage.js';
import { DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS } from '../domain/secrets/identity-options.js';
import { route } from '../route.js';

export const orgLimitsFeature: Feature<'limits' | 'sessions'> = {
  name: 'org-limits',
  register(app, ctx, { limits, sessions }) {
    const usage: OrgUsageSources = {
      db: ctx.db,
      sessionsInUse: (orgId) => sessions.limits.inUse(ctx.db, orgId),
      minHealthCheckIntervalSeconds: ctx.config.identity.minHealthCheckIntervalSeconds ?? DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS,
    };
    route(app, 'GET /org/limits', async (req) => {
      requireApiKey(req.auth);
      return withUsage(await limits.orgLimits(req.auth.orgId), req.auth.orgId, usage);
    });
    route(app, 'PATCH /org/limits', { onRequest: orgWideKeyFirst('changing organization limits') }, async (req) => {
      return withUsage(await limits.updateOrgLimits(req.auth.orgId, req.body ?? {}), req.auth.orgId, usage);
    });
  },
};
