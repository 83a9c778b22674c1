/**
 * Who sees which change on the feed, mirroring who may read the resource through the API:
 * nobody hears another organization's changes; an org-wide API key (or a console signed in
 * with one) sees every change in its organization; a project-scoped key sees changes whose `project_id` is its project (a
 * project's own changes carry its id, so the key sees its project renamed or its limits
 * changed) and nothing org-level (org-wide keys, org limits, credential providers). Session
 * JWTs and invocation keys are confined to one session or one run and get no feed at all.
 */
import type { AuthContext } from './auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { OrgChange } from '../../events/resource-changes.js';

/** Throws 403 for credentials that may not follow the feed. */
export function requireFeedAccess(auth: AuthContext): void {
  if (auth.strategy !== 'api_key') throw DomainError.forbidden('the change feed needs an API key; session tokens and invocation keys cannot follow it');
}

export function changeVisibleTo(auth: AuthContext, c: OrgChange): boolean {
  if (auth.strategy !== 'api_key' || c.orgId !== auth.orgId) return false;
  if (auth.credentialProjectId === null) return true;
  return c.event.project_id === auth.credentialProjectId;
}
