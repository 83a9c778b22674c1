/**
 * Who is calling. Every request but the public ones carries a bearer API key, or — on the
 * routes of one session — that session's JWT. Authenticators are pluggable so features
 * (session JWTs, invocation-scoped keys) add their own without this file knowing them.
 * The result is `request.auth`, including the project the request is scoped to.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';
import { bearerOf, type AuthContext, type Credential, type RouteAccess } from '../domain/org/auth-context.js';
import { stringField } from '../../shared/string-field.js';

export { basicPasswordOf, bearerOf, type AuthContext, type AuthStrategy, type Credential, type RouteAccess } from '../domain/org/auth-context.js';

/**
 * Returns a credential, null when this authenticator does not apply, or throws ApiError. `route`:
 * what the matched route's facts and params say about access. (Domain's authenticators take only the url and headers.)
 */
export type Authenticator = (request: FastifyRequest, bearer: string | undefined, route: RouteAccess) => Promise<Credential | null> | Credential | null;

const NO_ROUTE: RouteAccess = {};

/** The matched route's access facts (routing runs before `onRequest`, so they and the params are known here). */
function routeAccessOf(request: FastifyRequest): RouteAccess {
  const config = request.routeOptions.config;
  if (!config?.session && !config?.sessionJwt && !config?.webdriver) return NO_ROUTE;
  return {
    sessionId: config.session ? stringField(request.params, config.session) : undefined,
    sessionJwt: config.sessionJwt,
    webdriver: config.webdriver,
  };
}

export interface ProjectResolver {
  /** Resolves an id or name within an org; null when there is none. */
  resolve(orgId: string, idOrName: string): Promise<{ id: string } | null>;
  /** May answer synchronously (from a cache). */
  defaultProjectId(orgId: string): string | Promise<string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** Reachable without credentials (health check, web console assets). */
    public?: boolean;
  }
}

export function installAuth(app: FastifyInstance, authenticators: Authenticator[], projects: ProjectResolver): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  // Callback-style and synchronous whenever every step answers from memory (a recently seen
  // key, the cached default project): this runs on every request, so the common case costs no
  // promise or microtask. Any step that needs the database continues asynchronously.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config?.public) return done();
    const bearer = bearerOf(request);
    const credential = firstCredential(request, bearer, routeAccessOf(request), authenticators, 0);
    const scoped = isThenable(credential) ? credential.then((c) => authorize(request, bearer, c, projects)) : authorize(request, bearer, credential, projects);
    if (isThenable(scoped)) scoped.then(() => done(), done);
    else done();
  });
}

function isThenable<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === 'function';
}

/** Asks each authenticator in turn; synchronous until one of them answers with a promise. */
function firstCredential(
  request: FastifyRequest,
  bearer: string | undefined,
  route: RouteAccess,
  authenticators: Authenticator[],
  from: number,
): Credential | null | Promise<Credential | null> {
  for (let i = from; i < authenticators.length; i++) {
    const c = authenticators[i](request, bearer, route);
    if (isThenable(c)) return c.then((found) => found ?? firstCredential(request, bearer, route, authenticators, i + 1));
    if (c) return c;
  }
  return null;
}

/**
 * The project a request selects by header, if any: `X-Kernel-Project` (id or name; Kernel SDK
 * ≥ 0.90, option `project`) and/or the older `X-Kernel-Project-Id` (also an id or a name here).
 * When both arrive they must name the same project (400 otherwise: which one wins is not
 * documented by Kernel, so neither silently does).
 */
export function selectedProject(request: Pick<FastifyRequest, 'headers'>): Array<{ header: string; value: string }> | null {
  const out: Array<{ header: string; value: string }> = [];
  for (const header of ['X-Kernel-Project', 'X-Kernel-Project-Id']) {
    const raw = request.headers[header.toLowerCase()];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) out.push({ header, value });
  }
  return out.length ? out : null;
}

/** Sets `request.auth` (or throws 401/403/404); a promise only when a lookup is not cached. */
function authorize(request: FastifyRequest, bearer: string | undefined, c: Credential | null, projects: ProjectResolver): void | Promise<void> {
  if (!c) throw ApiError.unauthorized(bearer ? 'invalid or expired API key' : 'missing bearer API key (Authorization: Bearer <key>)');
  const selected = selectedProject(request);
  if (selected) {
    return Promise.all(selected.map((h) => projects.resolve(c.orgId, h.value).then((p) => ({ ...h, p })))).then((found) => {
      for (const f of found) if (!f.p) throw new ApiError(404, 'project_not_found', `project '${f.value}' (${f.header}) not found`);
      const ids = new Set(found.map((f) => f.p!.id));
      if (ids.size > 1) throw ApiError.invalidField('X-Kernel-Project', 'X-Kernel-Project and X-Kernel-Project-Id name different projects');
      const [id] = ids;
      if (c.projectId && id !== c.projectId) throw ApiError.forbidden(`this API key is scoped to another project than ${found[0].header}`);
      request.auth = authContext(c, id);
    });
  }
  if (c.projectId) {
    request.auth = authContext(c, c.projectId);
    return;
  }
  const fallback = projects.defaultProjectId(c.orgId);
  if (isThenable(fallback)) {
    return fallback.then((id) => {
      request.auth = authContext(c, id);
    });
  }
  request.auth = authContext(c, fallback);
}

function authContext(c: Credential, projectId: string): AuthContext {
  return {
    orgId: c.orgId,
    strategy: c.strategy,
    userId: c.userId,
    email: c.email,
    credentialProjectId: c.projectId,
    projectId,
    sessionId: c.sessionId,
    invocationId: c.invocationId,
  };
}
