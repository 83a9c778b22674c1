/**
 * WebSocket upgrades (CDP proxy, BiDi, live view, terminals) share the HTTP server's port.
 * Features register a path of the upgrade table (`shared/wire/routes/upgrade-table.ts`), which
 * gives its facts; the first match takes the socket. Unmatched upgrades get a plain HTTP 404 so
 * clients fail fast instead of hanging.
 * Every matched upgrade passes the router's gate first (`runtime/limits/connection-limits.ts`,
 * given by the composition root): a connection slot of its session and of the engine, held
 * until the socket closes, or the gate's 429 before any handler or handshake runs.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { noteUpgradeRoute } from './upgrade-identity.js';
import { UPGRADES, type UpgradeFacts, type UpgradePath } from '../../shared/wire/routes/upgrade-table.js';
import { ApiError } from './api-error.js';
import { errorBody, errorHeaders } from './error-handler.js';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>, url: URL) => void | Promise<void>;

/**
 * Runs before the matched route's handler; answers true when it took the socket (multi-node:
 * the upgrade belongs to a session on another node and was piped there). `facts`: the matched route's.
 */
export type UpgradeInterceptor = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  params: Record<string, string>,
  url: URL,
  facts: UpgradeFacts,
) => boolean | Promise<boolean>;

/** Admits one connection (of a session, when the route names one): its release, or throws the refusal (an ApiError). */
export interface UpgradeGate {
  admit(sessionId: string | undefined): () => void;
  /** The bounds and the connections open now (`/healthz`). */
  status(): { per_session: number; per_engine: number; open: number };
}

/**
 * Which session an upgrade is for, before its handler runs (counted against that session's
 * connections). Default: the param its `session` fact names; a route addressing its session
 * otherwise (a token) says how. Undefined: counted against the engine's bound only.
 */
export type UpgradeSessionOf = (params: Record<string, string>) => string | undefined | Promise<string | undefined>;

interface Route {
  path: string;
  pattern: RegExp;
  keys: string[];
  facts: UpgradeFacts;
  handler: UpgradeHandler;
  sessionOf: UpgradeSessionOf;
}

export class UpgradeRouter {
  private routes: Route[] = [];
  private interceptor: UpgradeInterceptor | undefined;

  /**
   * `logError`: where a handler's unexpected failure (answered as a bare 500) is reported, as for
   * HTTP routes. `gate`: the connection limits every upgrade passes (none: unbounded).
   */
  constructor(
    private readonly logError: (err: unknown, path: string) => void = () => {},
    readonly gate?: UpgradeGate,
  ) {}

  /** One interceptor for every route (see UpgradeInterceptor). */
  intercept(fn: UpgradeInterceptor): void {
    this.interceptor = fn;
  }

  /**
   * The upgrade table's `path` (its facts come from there). `sessionOf`: which session the
   * upgrade is for when no `session` fact names it (UpgradeSessionOf).
   */
  add(path: UpgradePath, handler: UpgradeHandler, sessionOf?: UpgradeSessionOf): void {
    this.register(path, UPGRADES[path].facts, handler, sessionOf);
  }

  /**
   * A path the table does not list, with its facts (a test's probe endpoint). `path` uses
   * `:name` segments, e.g. `/browsers/:id/cdp`; a trailing `*` matches the rest.
   */
  register(path: string, facts: UpgradeFacts, handler: UpgradeHandler, sessionOf?: UpgradeSessionOf): void {
    const keys: string[] = [];
    const source = path
      .split('/')
      .map((seg) => {
        if (seg.startsWith(':')) {
          keys.push(seg.slice(1));
          return '([^/]+)';
        }
        if (seg === '*') {
          keys.push('rest');
          return '(.*)';
        }
        return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    const param = facts.session;
    const session = sessionOf ?? ((params: Record<string, string>) => (param ? params[param] : undefined));
    this.routes.push({ path, pattern: new RegExp(`^${source}/?$`), keys, facts, handler, sessionOf: session });
  }

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = new URL(req.url ?? '/', 'http://localhost');
      for (const route of this.routes) {
        const m = route.pattern.exec(url.pathname);
        if (!m) continue;
        const params: Record<string, string> = {};
        try {
          route.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1] ?? '')));
        } catch {
          // A malformed %-escape would otherwise throw inside the server's 'upgrade' event.
          return rejectUpgrade(socket, new ApiError(400, 'invalid_request', `the path ${url.pathname} has a malformed %-escape`));
        }
        // The audit log records the template, like it does for HTTP routes.
        noteUpgradeRoute(req, route.path, route.facts.audit);
        this.handle(route, req, socket, head, params, url).catch((err: unknown) => {
          if (!(err instanceof ApiError)) this.logError(err, route.path);
          rejectUpgrade(socket, err);
        });
        return;
      }
      rejectUpgrade(socket, new ApiError(404, 'not_found', `no WebSocket route for ${url.pathname}`));
    });
  }

  /** The gate's slot, then the interceptor or the route's handler; a failure frees the slot at once. */
  private async handle(route: Route, req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>, url: URL): Promise<void> {
    let release = () => {};
    if (this.gate) {
      release = this.gate.admit(await route.sessionOf(params));
      if (socket.destroyed) release();
      else socket.once('close', release);
    }
    try {
      const took = this.interceptor ? await this.interceptor(req, socket, head, params, url, route.facts) : false;
      if (!took) await route.handler(req, socket, head, params, url);
    } catch (err) {
      // Refused: the slot is free now, not when the client gets round to closing its socket.
      release();
      throw err;
    }
  }
}

/**
 * Answers an upgrade that will not become a WebSocket with the wire Error object (an ApiError's
 * own status, code and message; anything else is a 500 that reveals nothing), then closes.
 */
export function rejectUpgrade(socket: Duplex, err: unknown): void {
  if (socket.destroyed) return;
  const e = err instanceof ApiError ? err : new ApiError(500, 'internal_error', 'internal server error');
  const body = JSON.stringify(errorBody(e));
  const extra = Object.entries(errorHeaders(e))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`,
  );
}
