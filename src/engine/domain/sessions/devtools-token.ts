/**
 * The credential of one DevTools frontend opened on one tab (`GET /browsers/{id}/devtools`).
 * The frontend loads dozens of assets and opens a WebSocket on its own, none of which can carry a
 * header, so a short-lived token rides in their path. It names the session, its org and project,
 * the one target and the mode (`read` = the proxy refuses commands that change the page).
 *
 * Signed with the session-JWT key but under its own issuer, so it is never accepted as a session
 * JWT (`session-jwt.ts` checks the issuer): a read-only token cannot open the full CDP proxy, and
 * a session JWT cannot pose as a frontend token.
 */
import type { SessionJwt } from './session-jwt.js';

const ISSUER = 'browserdeck:devtools';
export const INSPECT_MODES = ['full', 'read'] as const;
export type InspectMode = (typeof INSPECT_MODES)[number];

export interface DevtoolsClaims {
  sessionId: string;
  orgId: string;
  projectId: string;
  targetId: string;
  mode: InspectMode;
}

export class DevtoolsTokens {
  constructor(private readonly jwt: SessionJwt) {}

  sign(c: DevtoolsClaims, expiresAt: Date): Promise<string> {
    return this.jwt.signAs(ISSUER, c.sessionId, { org: c.orgId, project: c.projectId, target: c.targetId, mode: c.mode }, expiresAt);
  }

  /** The claims of a valid token, or null when it is forged, malformed, expired or another kind. */
  async verify(token: string): Promise<DevtoolsClaims | null> {
    const p = await this.jwt.verifyAs(ISSUER, token);
    const mode = INSPECT_MODES.find((m) => m === p?.mode);
    if (!p || typeof p.sub !== 'string' || typeof p.org !== 'string' || typeof p.project !== 'string' || typeof p.target !== 'string' || !mode) return null;
    return { sessionId: p.sub, orgId: p.org, projectId: p.project, targetId: p.target, mode };
  }
}
