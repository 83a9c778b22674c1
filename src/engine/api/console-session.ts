/**
 * Web console sign-in. The browser trades an API key for an opaque console token kept in an
 * HttpOnly, SameSite=Strict session cookie, so the key never sits in page storage or a URL:
 * `POST /console/session {api_key}` signs in, `GET` tells who is signed in, `DELETE` signs out.
 * The cookie authenticates only requests that also carry `X-Browserdeck-Console: 1` (a header
 * a cross-site form or image cannot send: the CSRF guard), and every use re-checks that the
 * key behind it is still live, so deleting or expiring the key ends its console sessions.
 * Tokens are stored (hashed) in the engine's database, so a console stays signed in across an
 * engine restart (it reconnects to the change feed by itself) and on every node of one store.
 */
import { createHash, randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import { SignedInSchema as SignedIn } from '../../shared/wire/console.js';
import type { EngineContext } from '../context.js';
import type { Credential } from '../http/auth.js';
import { ApiError } from '../http/api-error.js';
import { route } from '../route.js';

export const CONSOLE_COOKIE = 'bd_console';
export const CONSOLE_HEADER = 'x-browserdeck-console';
/** A console session ends after this long without a request. */
const IDLE_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

const SAVE_USE_EVERY_MS = 60_000;

interface ConsoleEntry {
  keyId: string;
  lastUsed: number;
  /** The last use written to the table. */
  savedUse: number;
}

const hashToken = (t: string): string => createHash('sha256').update(t).digest('hex');

function consoleHeader(request: FastifyRequest): boolean {
  const v = request.headers[CONSOLE_HEADER];
  return (Array.isArray(v) ? v[0] : v) === '1';
}

function requireConsoleHeader(request: FastifyRequest): void {
  if (!consoleHeader(request)) throw ApiError.badRequest('console requests must carry the header X-Browserdeck-Console: 1');
}

function cookieToken(request: FastifyRequest): string | undefined {
  const raw = request.headers.cookie;
  if (!raw) return undefined;
  return fastifyCookie.parse(raw)[CONSOLE_COOKIE] || undefined;
}

function setCookie(request: FastifyRequest, reply: FastifyReply, value: string, clear = false): void {
  reply.header(
    'set-cookie',
    fastifyCookie.serialize(CONSOLE_COOKIE, value, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      secure: request.protocol === 'https',
      ...(clear ? { maxAge: 0 } : {}),
    }),
  );
}

export class ConsoleSessions {
  /** Tokens seen by this process, so most requests need no lookup of the token itself. */
  private readonly byTokenHash = new Map<string, ConsoleEntry>();

  constructor(private readonly ctx: EngineContext) {}

  async open(keyId: string): Promise<string> {
    await this.sweep();
    const n = await this.ctx.db
      .selectFrom('console_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(n.n) >= MAX_SESSIONS) throw ApiError.tooMany('too many console sessions; try again later', 'too_many_console_sessions', 60);
    const token = randomBytes(32).toString('base64url');
    const entry = { keyId, lastUsed: Date.now(), savedUse: Date.now() };
    await this.ctx.db
      .insertInto('console_sessions')
      .values({ token_hash: hashToken(token), key_id: keyId, last_used_at: new Date(entry.lastUsed).toISOString() })
      .execute();
    this.byTokenHash.set(hashToken(token), entry);
    return token;
  }

  async close(token: string): Promise<void> {
    const h = hashToken(token);
    this.byTokenHash.delete(h);
    await this.ctx.db.deleteFrom('console_sessions').where('token_hash', '=', h).execute();
  }

  clear(): void {
    this.byTokenHash.clear();
  }

  /** The live key behind a console token, or null (unknown/idle token, deleted/expired key). */
  async resolve(token: string): Promise<{ credential: Credential; info: typeof SignedIn.static } | null> {
    const h = hashToken(token);
    // The stored row is read on every use, joined with its key: a sign-out on another node (or
    // a deleted key) ends the console session here too, not only where it happened.
    const row = await this.ctx.db
      .selectFrom('console_sessions')
      .innerJoin('api_keys', 'api_keys.id', 'console_sessions.key_id')
      .innerJoin('orgs', 'orgs.id', 'api_keys.org_id')
      .select([
        'console_sessions.last_used_at',
        'api_keys.id',
        'api_keys.org_id',
        'api_keys.project_id',
        'api_keys.name',
        'api_keys.masked_key',
        'api_keys.expires_at',
        'api_keys.deleted_at',
        'orgs.admin_email',
      ])
      .where('console_sessions.token_hash', '=', h)
      .executeTakeFirst();
    if (!row) {
      this.byTokenHash.delete(h);
      return null;
    }
    let entry = this.byTokenHash.get(h);
    if (!entry) {
      const lastUsed = Date.parse(row.last_used_at);
      this.byTokenHash.set(h, (entry = { keyId: row.id, lastUsed, savedUse: lastUsed }));
    }
    if (Date.now() - entry.lastUsed > IDLE_TTL_MS || row.deleted_at || (row.expires_at && Date.parse(row.expires_at) <= this.ctx.clock.now().getTime())) {
      await this.forget(h);
      return null;
    }
    entry.lastUsed = Date.now();
    // The stored last use only needs the idle timeout's precision: written at most once a minute.
    if (entry.lastUsed - entry.savedUse > SAVE_USE_EVERY_MS) {
      entry.savedUse = entry.lastUsed;
      await this.ctx.db
        .updateTable('console_sessions')
        .set({ last_used_at: new Date(entry.lastUsed).toISOString() })
        .where('token_hash', '=', h)
        .execute();
    }
    return {
      credential: { orgId: row.org_id, strategy: 'api_key', userId: row.id, email: row.admin_email, projectId: row.project_id },
      info: { key_id: row.id, name: row.name, masked_key: row.masked_key, project_id: row.project_id },
    };
  }

  private async forget(h: string): Promise<void> {
    this.byTokenHash.delete(h);
    await this.ctx.db.deleteFrom('console_sessions').where('token_hash', '=', h).execute();
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [h, e] of this.byTokenHash) if (now - e.lastUsed > IDLE_TTL_MS) this.byTokenHash.delete(h);
    await this.ctx.db
      .deleteFrom('console_sessions')
      .where('last_used_at', '<', new Date(now - IDLE_TTL_MS).toISOString())
      .execute();
  }
}

export const consoleSessionFeature: Feature = {
  name: 'console-session',
  async register(app, ctx) {
    // Registered only so that its cookie codec loads (`parse`/`serialize` need it); parsing on
    // every request is off (`hook: false`): only this feature reads its one cookie.
    await app.register(fastifyCookie, { hook: false });
    const sessions = new ConsoleSessions(ctx);
    ctx.onStop(() => sessions.clear());

    // Bearer credentials win; the cookie counts only on console requests (CSRF guard).
    ctx.authenticators.push(async (request, bearer) => {
      if (bearer || !consoleHeader(request)) return null;
      const token = cookieToken(request);
      if (!token) return null;
      const found = await sessions.resolve(token);
      if (!found) throw ApiError.unauthorized('the console session has ended (signed out, expired, or its API key was deleted); sign in again');
      return found.credential;
    });

    const config = { public: true };
    route(app, 'POST /console/session', { config }, async (request, reply) => {
      requireConsoleHeader(request);
      const credential = await ctx.apiKeys.authenticate(request.body.api_key.trim());
      if (!credential || credential.strategy !== 'api_key') throw ApiError.unauthorized('invalid or expired API key');
      const token = await sessions.open(credential.userId);
      const found = await sessions.resolve(token);
      if (!found) throw ApiError.unauthorized('invalid or expired API key');
      setCookie(request, reply, token);
      return found.info;
    });
    route(app, 'GET /console/session', { config }, async (request) => {
      requireConsoleHeader(request);
      const token = cookieToken(request);
      const found = token ? await sessions.resolve(token) : null;
      if (!found) throw ApiError.unauthorized('not signed in');
      return found.info;
    });
    route(app, 'DELETE /console/session', { config }, async (request, reply) => {
      requireConsoleHeader(request);
      const token = cookieToken(request);
      if (token) await sessions.close(token);
      setCookie(request, reply, '', true);
      return reply.status(204).send();
    });
  },
};
