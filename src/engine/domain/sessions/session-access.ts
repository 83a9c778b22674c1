/**
 * Who may reach a session: the HTTP authenticator for `?jwt=` on `/browsers/{id}/…` routes
 * (a session token authorizes nothing else but `GET /auth/context`; the route's facts say which
 * are which, `RouteAccess`), and the check for WebSocket upgrades
 * (CDP, BiDi, live view), which accept that session's JWT or a bearer API key of its org.
 */
import type { IncomingMessage } from 'node:http';
import type { Authenticator, Credential } from '../org/auth-context.js';
import { basicPasswordOf, bearerOf } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionJwt } from './session-jwt.js';
import type { ApiKeyAuthority } from '../org/api-keys.js';

export function sessionJwtAuthenticator(jwt: SessionJwt): Authenticator {
  return async (request, bearer, route) => {
    const token = new URL(request.url, 'http://x').searchParams.get('jwt');
    if (!token || bearer) return null;
    if (!route.sessionJwt)
      throw DomainError.unauthorized('a session token (jwt) only authorizes the routes of its own session and GET /auth/context; use a bearer API key');
    const claims = await jwt.verify(token);
    if (!claims) throw DomainError.unauthorized('invalid or expired session token');
    // `any`: who am I (`GET /auth/context`, read-only, no secrets), answered for any valid token.
    if (route.sessionJwt === 'own' && claims.sessionId !== route.sessionId) throw DomainError.forbidden('this session token belongs to another session');
    return credentialOf(claims);
  };
}

/** A JWS compact serialization (three base64url parts); API keys have another shape. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * HTTP Basic credentials on the classic WebDriver routes only (route fact `webdriver`):
 * Selenium's client takes credentials from the server URL
 * (`http://user:<secret>@host/browsers/{id}/webdriver`) and cannot add a header or a query. The
 * password is that session's JWT or an API key (the user name is ignored). Nowhere else: Basic
 * credentials are sent by browsers on their own, which a bearer header or a token in the URL never are.
 */
export function webdriverBasicAuthenticator(jwt: SessionJwt, apiKeys: ApiKeyAuthority): Authenticator {
  return async (request, bearer, route) => {
    if (bearer || !route.webdriver) return null;
    const secret = basicPasswordOf(request);
    if (!secret) return null;
    if (!JWT_SHAPE.test(secret)) {
      const c = await apiKeys.authenticate(secret);
      if (!c) throw DomainError.unauthorized('invalid or expired API key (HTTP Basic password)');
      return c;
    }
    const claims = await jwt.verify(secret);
    if (!claims) throw DomainError.unauthorized('invalid or expired session token (HTTP Basic password)');
    if (claims.sessionId !== route.sessionId) throw DomainError.forbidden('this session token belongs to another session');
    return credentialOf(claims);
  };
}

function credentialOf(claims: { sessionId: string; orgId: string; projectId: string }): Credential {
  return {
    orgId: claims.orgId,
    strategy: 'session_jwt',
    userId: `session:${claims.sessionId}`,
    email: '',
    projectId: claims.projectId,
    sessionId: claims.sessionId,
  };
}

/** The credential of a WebSocket upgrade for session `id`: its JWT, or a bearer key. */
export async function authenticateUpgrade(req: IncomingMessage, url: URL, id: string, jwt: SessionJwt, apiKeys: ApiKeyAuthority): Promise<Credential> {
  const token = url.searchParams.get('jwt');
  const bearer = bearerOf(req);
  if (bearer) {
    const c = await apiKeys.authenticate(bearer);
    if (!c) throw DomainError.unauthorized('invalid or expired API key');
    return c;
  }
  if (!token) throw DomainError.unauthorized('missing session token (?jwt=) or bearer API key');
  const claims = await jwt.verify(token);
  if (!claims) throw DomainError.unauthorized('invalid or expired session token');
  if (claims.sessionId !== id) throw DomainError.forbidden('this session token belongs to another session');
  return credentialOf(claims);
}
