/**
 * Permission before validation for every route addressing one resource (`/browsers/{id}/…`,
 * `/profiles/{id_or_name}`, `/org/api_keys/{id}`, …): a request that would be refused for what
 * it carries (a malformed body or query, a wrong field, a conflict) first has the route's id
 * looked up in the caller's reach — its organization, and its project when the key is scoped
 * to one. Out of reach, or no such resource, it answers 404 instead, so a 400 never describes
 * a route's fields or confirms an id to a caller without the right.
 *
 * The lookup runs only on that error path (the error handler asks `config.denyFirst`, set here
 * on each such route), never on a request that succeeds: every route's own handler already
 * looks its resource up within the caller's reach, and a lookup per request added a database
 * round trip to every call on a session, a profile, a pool… (~0.3 ms on PostgreSQL).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stringField } from '../../shared/string-field.js';
import { ApiError } from './api-error.js';
import { inReach, REACH_TARGETS } from '../domain/org/resource-reach.js';
import type { ReachDb } from '../domain/org/resource-reach.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What to answer instead of a client error on this route: a 404 when the resource is out of reach, else null. */
    denyFirst?: (req: FastifyRequest) => Promise<ApiError | null>;
  }
}

/** Gives each such route its `denyFirst`. Call before the routes are registered. */
export function installResourceLookupFirst(app: FastifyInstance, db: ReachDb): void {
  app.addHook('onRoute', (route) => {
    // The route's `reach` fact (shared/wire/routes): the table and the path param that names the resource.
    const reach = route.config?.reach;
    if (!reach) return;
    const target = REACH_TARGETS[reach.table];
    const param = reach.param;
    const denyFirst = async (req: FastifyRequest): Promise<ApiError | null> => {
      // Public routes, and routes that authenticate themselves (no req.auth yet), decide alone.
      if (!req.auth) return null;
      const key = stringField(req.params, param);
      if (key === undefined) return null;
      if (await inReach(db, target, key, req.auth.orgId, req.auth.credentialProjectId)) return null;
      return new ApiError(404, 'not_found', `${target.what} '${key}' not found`);
    };
    route.config = { ...(route.config ?? {}), denyFirst };
  });
}
