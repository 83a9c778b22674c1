/**
 * A plain HTTP forwarding proxy for benches (absolute-form GETs only: their pages are plain HTTP),
 * listening on a loopback port or a Unix socket path.
 */
import http from 'node:http';

export async function startForwardProxy(listen: { port: 0 } | { path: string }): Promise<http.Server> {
  const proxy = http.createServer((req, res) => {
    const up = http.request(req.url ?? '', { method: req.method, headers: req.headers, agent: false }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => ('path' in listen ? proxy.listen(listen.path, r) : proxy.listen(0, '127.0.0.1', r)));
  return proxy;
}
