/**
 * Where a browser's DevTools endpoint is. An unjailed browser listens on a loopback port
 * (`ws://127.0.0.1:<port>/devtools/browser/<id>`); a jailed one only behind a Unix socket the
 * jail helper serves (`ws+unix:///<dir>/devtools.sock:/devtools/browser/<id>`, the form the
 * `ws` library and Playwright's `connectOverCDP` accept). Everything in the engine that opens a
 * raw connection or an HTTP request to DevTools goes through these helpers, so both forms work.
 */
import http from 'node:http';
import net from 'node:net';

export interface DevtoolsEndpoint {
  /** Unix socket path (jailed), else undefined. */
  socketPath?: string;
  host?: string;
  port?: number;
  /** The WebSocket path, e.g. `/devtools/browser/<id>`. */
  path: string;
}

export function jailedWsUrl(socketPath: string, wsPath: string): string {
  return `ws+unix://${socketPath}:${wsPath}`;
}

export function devtoolsEndpoint(wsUrl: string): DevtoolsEndpoint {
  if (wsUrl.startsWith('ws+unix://')) {
    const rest = wsUrl.slice('ws+unix://'.length);
    const colon = rest.indexOf(':');
    return { socketPath: rest.slice(0, colon), path: rest.slice(colon + 1) };
  }
  const u = new URL(wsUrl);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port), path: u.pathname };
}

/** A raw stream to the DevTools server (for forwarders that speak HTTP/WebSocket themselves). */
export function connectDevtools(wsUrl: string): net.Socket {
  const e = devtoolsEndpoint(wsUrl);
  return e.socketPath ? net.connect(e.socketPath) : net.connect(e.port!, e.host!);
}

/**
 * The WebSocket URL of one target (`/devtools/page/<targetId>`, the path Chromium gives every
 * target in `/json/list`) on the same DevTools server as the browser endpoint `wsUrl`.
 */
export function targetWsUrl(wsUrl: string, targetId: string): string {
  const e = devtoolsEndpoint(wsUrl);
  const p = `/devtools/page/${encodeURIComponent(targetId)}`;
  return e.socketPath ? jailedWsUrl(e.socketPath, p) : `ws://${e.host!.includes(':') ? `[${e.host}]` : e.host}:${e.port}${p}`;
}

/** One request to the DevTools HTTP server: its status and body as text (no status is an error). */
export function devtoolsRequest(wsUrl: string, method: 'GET' | 'PUT', path: string, timeoutMs = 10_000): Promise<{ status: number; body: string }> {
  const e = devtoolsEndpoint(wsUrl);
  return new Promise((resolve, reject) => {
    // Chromium answers only requests whose Host is an IP or localhost.
    const req = http.request(
      { ...(e.socketPath ? { socketPath: e.socketPath } : { host: e.host, port: e.port }), method, path, headers: { host: '127.0.0.1' }, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`DevTools ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** GET a DevTools HTTP endpoint (`/json/version`, `/json/list`) and parse its JSON. */
export async function devtoolsJson<T>(wsUrl: string, path: string, timeoutMs = 10_000): Promise<T> {
  const { body } = await devtoolsRequest(wsUrl, 'GET', path, timeoutMs);
  return JSON.parse(body) as T;
}
