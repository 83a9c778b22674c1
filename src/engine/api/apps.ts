/**
 * The apps feature: deployments, app versions (`GET /apps`, wire reference §3.2),
 * invocations and their browsers and events. Wires the services (`ctx.services.deployments`,
 * `ctx.services.invocations`), the invocation-key authenticator, the check of `invocation_id`
 * on browser creation, recovery at start and stopping every app process at engine stop.
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { AppListQuerySchema, AppVersionListSchema } from '../../shared/wire/apps.js';
import { AppEventLog } from '../domain/apps/app-event-log.js';
import { AppVersions } from '../domain/apps/app-versions.js';
import { Deployments } from '../domain/deployments/deployments.js';
import { Invocations } from '../domain/invocations/invocations.js';
import { invocationRunner } from '../domain/invocations/invocation-run.js';
import { installInvocationBrowserChecks, sessionsOf } from '../domain/invocations/invocation-browsers.js';
import { limitsService } from '../domain/org/limits.js';
import { nodeIdOf } from '../domain/sessions/session-recovery.js';
import { registerDeploymentRoutes } from './deployments.js';
import { registerInvocationRoutes } from './invocations.js';

export const appsFeature: Feature = {
  name: 'apps',
  async register(app, ctx) {
    const nodeId = nodeIdOf(ctx.config.dataDir);
    const events = new AppEventLog(ctx.db, ctx.clock, { onWriteError: (err) => ctx.log.error({ err }, 'storing app events failed') });
    const versions = new AppVersions(ctx.db);
    const deployments = new Deployments(ctx, events, versions, nodeId);
    const invocations = new Invocations(ctx, events, versions, limitsService(ctx), nodeId, () => sessionsOf(ctx));
    invocations.runner = invocationRunner(ctx, invocations, deployments);
    deployments.onDelete = (id) => invocations.failForDeployment(id);
    ctx.services.deployments = deployments;
    ctx.services.invocations = invocations;
    ctx.authenticators.push(invocations.keys.authenticator());
    ctx.projects.addUsageCounter(async (projectId) => {
      const r = await ctx.db
        .selectFrom('deployments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return { what: 'deployments', count: Number(r.n) };
    });
    installInvocationBrowserChecks(app, ctx);
    await deployments.recover();
    await invocations.recover();
    ctx.onStop(async () => {
      await invocations.stopAll();
      await deployments.stopAll();
    });

    app.get(
      '/apps',
      {
        schema: {
          tags: ['apps'],
          querystring: AppListQuerySchema,
          response: { 200: AppVersionListSchema },
        },
      },
      async (req, reply) => {
        const q = req.query;
        const page = pageOf(q);
        return sendPage(reply, await versions.list(req.auth, { ...q, ...page }), page);
      },
    );
    await registerDeploymentRoutes(app, ctx, deployments, events);
    registerInvocationRoutes(app, ctx, invocations, events);
  },
};
