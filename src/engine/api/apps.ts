/**
 * The apps feature: deployments, app versions (`GET /apps`, wire reference §3.2),
 * invocations and their browsers and events. Wires the invocation-key authenticator, recovery
 * at start and stopping every app process at engine stop (the services come from compose.ts;
 * the check of `invocation_id` on browser creation is declared in api/browsers.ts).
 */
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { registerDeploymentRoutes } from './deployments.js';
import { registerInvocationRoutes } from './invocations.js';
import { route } from '../route.js';

export const appsFeature: Feature<'apps' | 'sessions'> = {
  name: 'apps',
  async register(app, ctx, { apps, sessions }) {
    const { events, versions, deployments, invocations } = apps;
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
    await deployments.recover();
    await invocations.recover();
    ctx.onStop(async () => {
      await invocations.stopAll();
      await deployments.stopAll();
    });

    route(app, 'GET /apps', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      return sendPage(reply, await versions.list(req.auth, { ...q, ...page }), page);
    });
    await registerDeploymentRoutes(app, ctx, deployments, events);
    registerInvocationRoutes(app, ctx, invocations, events, sessions);
  },
};
