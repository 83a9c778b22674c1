/**
 * Session JWTs (HS256, `jose`): the credential embedded in a session's URLs. The signing key
 * is generated once and stored in the database so every engine node accepts every node's
 * tokens. A token names one session (`sub`), its org and project, and expires.
 */
import { randomBytes, webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';

const SECRET_NAME = 'session_jwt_hs256';
const ISSUER = 'browserdeck';

export interface SessionClaims {
  sessionId: string;
  orgId: string;
  projectId: string;
}

/** Loads the shared signing key, creating it on first use (a concurrent creator's key wins). */
export async function loadSessionJwtKey(db: Kysely<Database>, now: Date): Promise<Uint8Array> {
  const existing = await db.selectFrom('engine_secrets').select('value').where('name', '=', SECRET_NAME).executeTakeFirst();
  if (existing) return Buffer.from(existing.value, 'base64url');
  const value = randomBytes(32).toString('base64url');
  await db
    .insertInto('engine_secrets')
    .values({ name: SECRET_NAME, value, created_at: now.toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('engine_secrets').select('value').where('name', '=', SECRET_NAME).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

export class SessionJwt {
  /**
   * The key imported once: jose imports a raw key into WebCrypto on every sign and verify, and a
   * create signs one token, a CDP connect verifies one.
   */
  private readonly key: Promise<webcrypto.CryptoKey>;

  constructor(
    key: Uint8Array,
    private readonly now: () => Date,
  ) {
    this.key = webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    // A key WebCrypto refuses fails every sign and verify (where it is awaited), not the process.
    this.key.catch(() => {});
  }

  sign(c: SessionClaims, expiresAt: Date): Promise<string> {
    return this.signAs(ISSUER, c.sessionId, { org: c.orgId, project: c.projectId }, expiresAt);
  }

  /** The claims of a valid token, or null when it is forged, malformed or expired. */
  async verify(token: string): Promise<SessionClaims | null> {
    const payload = await this.verifyAs(ISSUER, token);
    if (!payload || typeof payload.sub !== 'string' || typeof payload.org !== 'string' || typeof payload.project !== 'string') return null;
    return { sessionId: payload.sub, orgId: payload.org, projectId: payload.project };
  }

  /**
   * A token of another kind under the same key (DevTools frontend `devtools-token.ts`, trace
   * viewer `trace-token.ts`): its own issuer, so `verify` never takes it for a session JWT and
   * one kind's `verifyAs` never takes another's.
   */
  async signAs(issuer: string, subject: string, claims: JWTPayload, expiresAt: Date): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(issuer)
      .setIssuedAt(Math.floor(this.now().getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(await this.key);
  }

  /** The payload of a valid token of `issuer`, or null when it is forged, malformed, expired or of another issuer. */
  async verifyAs(issuer: string, token: string): Promise<JWTPayload | null> {
    try {
      return (await jwtVerify(token, await this.key, { algorithms: ['HS256'], issuer, currentDate: this.now() })).payload;
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}
