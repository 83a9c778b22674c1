/**
 * `GET/PATCH /org/limits`: the organization's concurrency cap (engine configuration,
 * read-only) and its default per-project session cap (0 or null removes it; it may not
 * exceed the organization cap), with the usage newer Kernel SDKs read (`domain/org/org-usage.ts`).
 */
import type { Feature } from '../feature.js';
import { OrgLimitsPatchSchema, OrgLimitsSchema } from '../../shared/wire/org.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';
import { withUsage, type OrgUsageSources } from '../domain/org/org-usage.js';
import { DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS } from '../domain/secrets/identity-options.js';

export const orgLimitsFeature: Feature<'limits' | 'sessions'> = {
  name: 'org-limits',
  register(app, ctx, { limits, sessions }) {
    const usage: OrgUsageSources = {
      db: ctx.db,
      sessionsInUse: (orgId) => sessions.limits.inUse(ctx.db, orgId),
      minHealthCheckIntervalSeconds: ctx.config.identity.minHealthCheckIntervalSeconds ?? DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS,
    };
    const tags = ['organization'];
    app.get('/org/limits', { schema: { tags, response: { 200: OrgLimitsSchema } } }, async (req) => {
      requireApiKey(req.auth);
      return withUsage(await limits.orgLimits(req.auth.orgId), req.auth.orgId, usage);
    });
    app.patch(
      '/org/limits',
      { schema: { tags, body: OrgLimitsPatchSchema, response: { 200: OrgLimitsSchema } }, onRequest: orgWideKeyFirst('changing organization limits') },
      async (req) => {
        return withUsage(await limits.updateOrgLimits(req.auth.orgId, req.body ?? {}), req.auth.orgId, usage);
      },
    );
  },
};
