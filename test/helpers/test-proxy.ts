/**
 * A real HTTP proxy for tests, on loopback: plain requests in absolute form and CONNECT
 * tunnels, optionally requiring basic auth (407 otherwise). It records every request it saw
 * (method, target, whether the credentials matched) so tests can prove traffic went through it.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  authorized: boolean;
}

export interface TestProxy {
  host: string;
  port: number;
  url: string;
  seen: SeenRequest[];
  /** Targets seen, for `expect(...).toContain`. */
  targets(): string[];
  close(): Promise<void>;
}

export async function startTestProxy(opts: { username?: string; password?: string } = {}): Promise<TestProxy> {
  const seen: SeenRequest[] = [];
  const sockets = new Set<net.Socket>();
  const expected = opts.username !== undefined ? 'Basic ' + Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64') : undefined;
  const authorized = (h: string | undefined): boolean => expected === undefined || h === expected;

  const server = http.createServer((req, res) => {
    const ok = authorized(req.headers['proxy-authorization']);
    seen.push({ method: req.method ?? 'GET', target: req.url ?? '', authorized: ok });
    if (!ok) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-type': 'text/plain' }).end('proxy auth required');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URL required');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const up = http.request({ host: target.hostname, port: target.port || 80, method: req.method, path: target.pathname + target.search, headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`test proxy: ${err.message}`);
    });
    req.pipe(up);
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const ok = authorized(req.headers['proxy-authorization']);
    seen.push({ method: 'CONNECT', target: req.url ?? '', authorized: ok });
    if (!ok) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = splitHostPort(req.url ?? '');
    const upstream = net.connect({ host, port }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    targets: () => seen.map((s) => s.target),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitHostPort(authority: string): [string, number] {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return m ? [m[1], Number(m[2])] : [authority, 443];
}

/** A tiny origin server answering with the client's address (an IP-echo target) and a marker page. */
export async function startEchoServer(): Promise<{ url: string; port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '/');
    if (req.url?.startsWith('/ip')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ip: req.socket.remoteAddress?.replace(/^::ffff:/, '') }));
      return;
    }
    if (req.url?.startsWith('/fail')) {
      res.writeHead(503).end('down');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>echo ${req.url}</title></head><body>echo</body></html>`);
  });
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
