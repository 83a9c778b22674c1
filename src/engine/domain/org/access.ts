/**
 * Who may administer what. An org-wide API key administers the whole organization. A
 * project-scoped key sees its own project (and that project's limits and keys) but cannot
 * change the organization's shape: creating, renaming or deleting projects, changing limits
 * and minting org-wide keys need an org-wide key (403 otherwise); other projects look
 * unknown to it (404). Session tokens and invocation keys are short-lived and never
 * administer anything. Another organization's records are never reachable: every query is
 * filtered by the caller's org id.
 */
import type { AuthContext } from './auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { Projects, ProjectRow } from './projects.js';

/** The caller must be a long-lived API key (not a session token or invocation key). */
export function requireApiKey(auth: AuthContext): void {
  if (auth.strategy !== 'api_key') throw DomainError.forbidden('organization administration needs an API key');
}

/** The caller must hold an org-wide API key. */
export function requireOrgWideKey(auth: AuthContext, action: string): void {
  requireApiKey(auth);
  if (auth.credentialProjectId !== null) throw DomainError.forbidden(`${action} needs an org-wide API key; this key is scoped to one project`);
}

/** What the hooks below read of a request: only who is calling (domain/ knows nothing of Fastify). */
export interface CallerRequest {
  auth: AuthContext;
}

/**
 * The same checks as a route's `onRequest` hook. It runs before the body is parsed and
 * validated, so a caller without the right gets 403 whatever it sends: checked in the handler,
 * an invalid body would answer 400 first and describe the route's fields to that caller.
 */
export function orgWideKeyFirst(action: string): (req: CallerRequest) => Promise<void> {
  return async (req) => requireOrgWideKey(req.auth, action);
}

/** `requireApiKey` as an `onRequest` hook (see `orgWideKeyFirst`). */
export async function apiKeyFirst(req: CallerRequest): Promise<void> {
  requireApiKey(req.auth);
}

/** The project a caller is confined to: null for org-wide keys. */
export function confinedProject(auth: AuthContext): string | null {
  return auth.credentialProjectId;
}

/**
 * A project the caller may see, by id or name. Other projects do not exist for a
 * project-scoped key (404, like an unknown id), so it cannot probe their names.
 */
export async function getVisibleProject(projects: Projects, auth: AuthContext, idOrName: string): Promise<ProjectRow> {
  const p = await projects.get(auth.orgId, idOrName);
  if (auth.credentialProjectId !== null && auth.credentialProjectId !== p.id) throw DomainError.notFound('project', idOrName);
  return p;
}
