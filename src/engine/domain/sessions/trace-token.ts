/**
 * The credential of one Playwright trace opened in the trace viewer (`GET /browsers/{id}/trace`):
 * the viewer, its service worker and the trace zip it fetches cannot carry a header, so a
 * short-lived token rides in their path. It names the session, its org and project, and the one
 * file of the session's filesystem it may read. Signed with the session-JWT key under its own
 * issuer, so it is accepted nowhere else (not as a session JWT, not as a DevTools token).
 */
import type { SessionJwt } from './session-jwt.js';

const ISSUER = 'browserdeck:trace';

export interface TraceClaims {
  sessionId: string;
  orgId: string;
  projectId: string;
  /** The trace file, a normalized path of the session's filesystem. */
  path: string;
}

export class TraceTokens {
  constructor(private readonly jwt: SessionJwt) {}

  sign(c: TraceClaims, expiresAt: Date): Promise<string> {
    return this.jwt.signAs(ISSUER, c.sessionId, { org: c.orgId, project: c.projectId, path: c.path }, expiresAt);
  }

  /** The claims of a valid token, or null when it is forged, malformed, expired or another kind. */
  async verify(token: string): Promise<TraceClaims | null> {
    const p = await this.jwt.verifyAs(ISSUER, token);
    if (!p || typeof p.sub !== 'string' || typeof p.org !== 'string' || typeof p.project !== 'string' || typeof p.path !== 'string') return null;
    return { sessionId: p.sub, orgId: p.org, projectId: p.project, path: p.path };
  }
}
