/**
 * Who sees which change on the feed, mirroring who may read the resource through the API:
 * an org-wide API key (or a console signed in with one) sees every change in its
 * organization; a project-scoped key sees changes whose `project_id` is its project (a
 * project's own changes carry its id, so the key sees its project renamed or its limits
 * changed) and nothing org-level (org-wide keys, org limits, credential providers). Session
 * JWTs and invocation keys are confined to one session or one run and get no feed at all.
 */
import type { AuthContext } from './auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { ChangeEvent } from '../../../shared/wire/changes.js';

/** Throws 403 for credentials that may not follow the feed. */
export function requireFeedAccess(auth: AuthContext): void {
  if (auth.strategy !== 'api_key') throw DomainError.forbidden('the change feed needs an API key; session tokens and invocation keys cannot follow it');
}

export function changeVisibleTo(auth: AuthContext, e: ChangeEvent): boolean {
  if (auth.strategy !== 'api_key') return false;
  if (auth.credentialProjectId === null) return true;
  return e.project_id === auth.credentialProjectId;
}
