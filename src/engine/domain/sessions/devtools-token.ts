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
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

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
  constructor(
    private readonly key: Uint8Array,
    private readonly now: () => Date,
  ) {}

  sign(c: DevtoolsClaims, expiresAt: Date): Promise<string> {
    return new SignJWT({ org: c.orgId, project: c.projectId, target: c.targetId, mode: c.mode })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.sessionId)
      .setIssuer(ISSUER)
      .setIssuedAt(Math.floor(this.now().getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key);
  }

  /** The claims of a valid token, or null when it is forged, malformed, expired or another kind. */
  async verify(token: string): Promise<DevtoolsClaims | null> {
    try {
      const { payload: p } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, currentDate: this.now() });
      const mode = INSPECT_MODES.find((m) => m === p.mode);
      if (typeof p.sub !== 'string' || typeof p.org !== 'string' || typeof p.project !== 'string' || typeof p.target !== 'string' || !mode) return null;
      return { sessionId: p.sub, orgId: p.org, projectId: p.project, targetId: p.target, mode };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}
