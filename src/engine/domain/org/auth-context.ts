/**
 * Who is calling, as the domain sees it: the credential an authenticator found and the
 * `AuthContext` (credential + the project the request acts in) every service takes. Defined
 * here, below http/, so domain never imports the HTTP layer; `http/auth.ts` installs the hook
 * that fills `request.auth` and re-exports these types for api/ modules.
 */
import type { IncomingHttpHeaders } from 'node:http';

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

/** The parts of a request an authenticator reads (a Fastify request or a raw upgrade request). */
export interface AuthRequest {
  url?: string;
  headers: IncomingHttpHeaders;
}

/**
 * What the route a request matched says about who may call it, as values (its facts and params,
 * `shared/wire/routes/route-spec.ts`): authenticators decide by these, never by matching the URL.
 * Empty when no route matched.
 */
export interface RouteAccess {
  /** The session the route addresses (the param its `session` fact names). */
  sessionId?: string;
  /** Which session token authorizes the route: that session's own (`own`), any valid one (`any`), or none. */
  sessionJwt?: 'own' | 'any';
  /** A classic WebDriver route: HTTP Basic credentials count. */
  webdriver?: boolean;
}

/** Returns a credential, null when this authenticator does not apply, or throws DomainError. */
export type Authenticator = (
  request: AuthRequest & { url: string },
  bearer: string | undefined,
  route: RouteAccess,
) => Promise<Credential | null> | Credential | null;

/** The token of `Authorization: Bearer <token>`, if any. */
export function bearerOf(request: Pick<AuthRequest, 'headers'>): string | undefined {
  const h = request.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : undefined;
}

/**
 * The password of HTTP Basic credentials (`Authorization: Basic base64(user:password)`), for the
 * few routes whose clients can only put credentials in the server URL (Selenium's WebDriver
 * client); the user name carries nothing. Undefined when absent or malformed.
 */
export function basicPasswordOf(request: Pick<AuthRequest, 'headers'>): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)$/i.exec(request.headers.authorization?.trim() ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  return password || undefined;
}
