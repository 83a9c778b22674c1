/**
 * Who may reach a session: the HTTP authenticator for `?jwt=` on `/browsers/{id}/…` routes
 * (a session token never authorizes anything else), and the check for WebSocket upgrades
 * (CDP, BiDi, live view), which accept that session's JWT or a bearer API key of its org.
 */
import type { IncomingMessage } from 'node:http';
import type { Authenticator, Credential } from '../org/auth-context.js';
import { bearerOf } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { SessionJwt } from './session-jwt.js';
import type { ApiKeyAuthority } from '../org/api-keys.js';

const SUB_ROUTE = /^\/browsers\/([^/?#]+)\/[^?#]+/;

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function sessionJwtAuthenticator(jwt: SessionJwt): Authenticator {
  return async (request, bearer) => {
    const url = new URL(request.url, 'http://x');
    const token = url.searchParams.get('jwt');
    if (!token || bearer) return null;
    const m = SUB_ROUTE.exec(url.pathname);
    if (!m) throw DomainError.unauthorized('a session token (jwt) only authorizes the routes of its own session; use a bearer API key');
    const claims = await jwt.verify(token);
    if (!claims) throw DomainError.unauthorized('invalid or expired session token');
    if (claims.sessionId !== safeDecode(m[1])) throw DomainError.forbidden('this session token belongs to another session');
    return credentialOf(claims);
  };
}

function credentialOf(claims: { sessionId: string; orgId: string; projectId: string }): Credential {
  return { orgId: claims.orgId, strategy: 'session_jwt', userId: `session:${claims.sessionId}`, email: '', projectId: claims.projectId, sessionId: claims.sessionId };
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
