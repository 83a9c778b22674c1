/**
 * WebSocket upgrades (CDP proxy, BiDi, live view, terminals) share the HTTP server's port.
 * Features register a path pattern; the first match takes the socket. Unmatched upgrades get
 * a plain HTTP 404 so clients fail fast instead of hanging.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { noteUpgradeRoute } from './upgrade-identity.js';

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
        route.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1] ?? '')));
        // The audit log records the template, like it does for HTTP routes.
        noteUpgradeRoute(req, route.path);
        const intercept = this.interceptor;
        const handled = intercept ? Promise.resolve(intercept(req, socket, head, params, url)).then((took) => took || route.handler(req, socket, head, params, url)) : Promise.resolve(route.handler(req, socket, head, params, url));
        handled.catch(() => rejectUpgrade(socket, 500, 'internal error'));
        return;
      }
      rejectUpgrade(socket, 404, 'not found');
    });
  }
}

export function rejectUpgrade(socket: Duplex, status: number, message: string): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ code: status === 401 ? 'unauthorized' : status === 404 ? 'not_found' : 'error', message, details: [] });
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
