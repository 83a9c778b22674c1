/**
 * Who is calling. Every request but the public ones carries a bearer API key, or — on the
 * routes of one session — that session's JWT. Authenticators are pluggable so features
 * (session JWTs, invocation-scoped keys) add their own without this file knowing them.
 * The result is `request.auth`, including the project the request is scoped to.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.js';

export type AuthStrategy = 'api_key' | 'session_jwt' | 'invocation_key';

export interface AuthContext {
  orgId: string;
  strategy: AuthStrategy;
  /** The key (or token subject) acting; recorded as `user_id` in the audit log. */
  userId: string;
  email: string;
  /** The project the credential is bound to, or null for an org-wide key. */
  credentialProjectId: string | null;
  /** The project this request acts in (header, else credential, else the org's default). */
  projectId: string;
  /** Set when the credential only grants access to one browser session. */
  sessionId?: string;
  /** Set when the credential only lives as long as one invocation. */
  invocationId?: string;
}

export interface Credential {
  orgId: string;
  strategy: AuthStrategy;
  userId: string;
  email: string;
  projectId: string | null;
  sessionId?: string;
  invocationId?: string;
}

/** Returns a credential, null when this authenticator does not apply, or throws ApiError. */
export type Authenticator = (request: FastifyRequest, bearer: string | undefined) => Promise<Credential | null> | Credential | null;

export interface ProjectResolver {
  /** Resolves an id or name within an org; null when there is none. */
  resolve(orgId: string, idOrName: string): Promise<{ id: string } | null>;
  defaultProjectId(orgId: string): Promise<string>;
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

export function bearerOf(request: FastifyRequest): string | undefined {
  const h = request.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : undefined;
}

export function installAuth(app: FastifyInstance, authenticators: Authenticator[], projects: ProjectResolver): void {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public) return;
    const bearer = bearerOf(request);
    let credential: Credential | null = null;
    for (const authenticate of authenticators) {
      credential = await authenticate(request, bearer);
      if (credential) break;
    }
    if (!credential) throw ApiError.unauthorized(bearer ? 'invalid or expired API key' : 'missing bearer API key (Authorization: Bearer <key>)');
    request.auth = await scopeToProject(request, credential, projects);
  });
}

async function scopeToProject(request: FastifyRequest, c: Credential, projects: ProjectResolver): Promise<AuthContext> {
  const raw = request.headers['x-kernel-project-id'];
  const header = Array.isArray(raw) ? raw[0] : raw;
  let projectId: string;
  if (header && header.trim()) {
    const p = await projects.resolve(c.orgId, header.trim());
    if (!p) throw new ApiError(404, 'project_not_found', `project '${header}' (X-Kernel-Project-Id) not found`);
    if (c.projectId && p.id !== c.projectId) throw ApiError.forbidden('this API key is scoped to another project than X-Kernel-Project-Id');
    projectId = p.id;
  } else {
    projectId = c.projectId ?? (await projects.defaultProjectId(c.orgId));
  }
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
