/**
 * WebSocket upgrades (CDP proxy, BiDi, live view, terminals) share the HTTP server's port.
 * Features register a path pattern; the first match takes the socket. Unmatched upgrades get
 * a plain HTTP 404 so clients fail fast instead of hanging.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { noteUpgradeRoute } from './upgrade-identity.js';
import { ApiError } from './api-error.js';
import { errorBody, errorHeaders } from './error-handler.js';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>, url: URL) => void | Promise<void>;

/**
 * Runs before the matched route's handler; answers true when it took the socket (multi-node:
 * the upgrade belongs to a session on another node and was piped there).
 */
export type UpgradeInterceptor = (req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>, url: URL) => boolean | Promise<boolean>;

interface Route {
  path: string;
  pattern: RegExp;
  keys: string[];
  handler: UpgradeHandler;
}

export class UpgradeRouter {
  private routes: Route[] = [];
  private interceptor: UpgradeInterceptor | undefined;

  /** `logError`: where a handler's unexpected failure (answered as a bare 500) is reported, as for HTTP routes. */
  constructor(private readonly logError: (err: unknown, path: string) => void = () => {}) {}

  /** One interceptor for every route (see UpgradeInterceptor). */
  intercept(fn: UpgradeInterceptor): void {
    this.interceptor = fn;
  }

  /** `path` uses `:name` segments, e.g. `/browsers/:id/cdp`. A trailing `*` matches the rest. */
  add(path: string, handler: UpgradeHandler): void {
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
    this.routes.push({ path, pattern: new RegExp(`^${source}/?$`), keys, handler });
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
        noteUpgradeRoute(req, route.path);
        const intercept = this.interceptor;
        const handled = intercept
          ? Promise.resolve(intercept(req, socket, head, params, url)).then((took) => took || route.handler(req, socket, head, params, url))
          : Promise.resolve(route.handler(req, socket, head, params, url));
        handled.catch((err: unknown) => {
          if (!(err instanceof ApiError)) this.logError(err, route.path);
          rejectUpgrade(socket, err);
        });
        return;
      }
      rejectUpgrade(socket, new ApiError(404, 'not_found', `no WebSocket route for ${url.pathname}`));
    });
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
