/**
 * Permission before validation for every route addressing one resource (`/browsers/{id}/…`,
 * `/profiles/{id_or_name}`, `/org/api_keys/{id}`, …): after authentication and the route's own
 * permission hooks, before the body is parsed or anything is validated, the route's first id is looked up in the caller's reach —
 * its organization, and its project when the key is scoped to one. A resource out of reach, or
 * none at all, answers 404 whatever the request carries; otherwise a malformed body or query
 * would answer 400 first, describing the route's fields and confirming the id to a caller
 * without the right. Only denies: a resource in reach goes on to the route's own checks.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stringField } from '../../shared/string-field.js';
import { ApiError } from './api-error.js';
import { inReach, REACH_TARGETS } from '../domain/org/resource-reach.js';
import type { ReachDb } from '../domain/org/resource-reach.js';

/**
 * Adds the lookup to each such route as its last `onRequest` hook: after authentication and
 * after the route's own permission hooks (an org-wide-only route still answers 403 first), before
 * parsing and validation. Call before the routes are registered.
 */
export function installResourceLookupFirst(app: FastifyInstance, db: ReachDb): void {
  app.addHook('onRoute', (route) => {
    const hit = REACH_TARGETS.find(([re]) => re.test(route.url));
    const param = /^\/[^:]*:(\w+)/.exec(route.url)?.[1];
    if (!hit || !param) return;
    const check = async (req: FastifyRequest): Promise<void> => {
      // Public routes, and routes that authenticate themselves (no req.auth yet), decide alone.
      if (!req.auth) return;
      const key = stringField(req.params, param);
      if (key === undefined) return;
      if (!(await inReach(db, hit[1], key, req.auth.orgId, req.auth.credentialProjectId)))
        throw new ApiError(404, 'not_found', `${hit[1].what} '${key}' not found`);
    };
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, check] as typeof route.onRequest;
  });
}
