/**
 * `GET/PATCH /org/limits`: the organization's concurrency cap (engine configuration,
 * read-only) and its default per-project session cap (0 or null removes it; it may not
 * exceed the organization cap), with the usage newer Kernel SDKs read (`domain/org/org-usage.ts`).
 * Also registers `ctx.services.limits` for other features.
 */
import type { Feature } from '../feature.js';
import { OrgLimitsPatchSchema, OrgLimitsSchema } from '../../shared/wire/org.js';
import { limitsService } from '../domain/org/limits.js';
import { orgWideKeyFirst, requireApiKey } from '../domain/org/access.js';
import { withUsage, type OrgUsageSources } from '../domain/org/org-usage.js';
import { DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS } from '../domain/secrets/identity-options.js';
import type { SessionLimits } from '../domain/sessions/session-limits.js';

export const orgLimitsFeature: Feature = {
  name: 'org-limits',
  register(app, ctx) {
    const limits = limitsService(ctx);
    // Looked up per request: the sessions feature registers its accounting independently of order.
    const sessionLimits = () => ctx.services.sessionLimits as SessionLimits | undefined;
    const usage: OrgUsageSources = {
      db: ctx.db,
      sessionsInUse: async (orgId) => (await sessionLimits()?.inUse(ctx.db, orgId)) ?? null,
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
