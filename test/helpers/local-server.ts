/**
 * The one local HTTP server for tests that need pages or endpoints (there is no outside network
 * here): 127.0.0.1 (or another loopback address) on a random port, given either a request handler or a map of path → HTML
 * page / handler (other paths answer 404). `close` drops open keep-alive connections, so a
 * browser still holding one cannot stall the test's teardown.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type LocalRoutes = Record<string, string | http.RequestListener>;

export interface LocalServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

function routeHandler(routes: LocalRoutes): http.RequestListener {
  return (req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (typeof route === 'function') return void route(req, res);
    res.writeHead(route === undefined ? 404 : 200, { 'content-type': route === undefined ? 'text/plain' : 'text/html; charset=utf-8' });
    res.end(route ?? 'not found');
  };
}

/** `host`: another loopback address (127.0.0.2, …) when a test needs origins apart by address. */
export async function startLocalServer(handler: http.RequestListener | LocalRoutes, host = '127.0.0.1'): Promise<LocalServer> {
  const server = http.createServer(typeof handler === 'function' ? handler : routeHandler(handler));
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
