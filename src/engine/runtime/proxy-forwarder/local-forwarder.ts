/**
 * A per-session forwarding proxy on loopback. Chromium's `--proxy-server` cannot carry
 * credentials, so the browser points at this forwarder and the forwarder adds
 * `Proxy-Authorization` on its way to the real (upstream) proxy. It speaks both proxy forms
 * Chromium uses: absolute-form HTTP requests and CONNECT tunnels (HTTPS, WebSockets).
 *
 * Failure is explicit: an upstream that cannot be reached in time or refuses answers 502 with a
 * plain-text reason (never a hang); an upstream that wants other credentials (407) is reported
 * as 502 too, so the browser does not pop an auth prompt. `setRoute` swaps the upstream and
 * bypass rules without restarting the browser; `close` destroys every socket.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { proxyAuthorization, type Upstream } from './upstream.js';
import { bypassRules, type BypassRules } from './bypass-rules.js';
import { NO_PRIVATE_HOSTS, privateHosts, type PrivateHosts } from './private-hosts.js';
import { EgressDenied, OPEN_EGRESS, type EgressPolicy } from './egress-policy.js';
import { NO_PROXY_ROUTES, proxyRoutes, type ProxyRoutes } from './proxy-routes.js';
import type { AllowedHosts } from './allowed-hosts.js';

/**
 * Where traffic goes: a destination matching one of `routes` (the session's
 * `network.proxy_routes`, proxy-routes.ts) through that route's upstream proxy; otherwise the
 * upstream proxy, except destinations matching `bypass` (the proxy's `bypass_hosts`, see
 * bypass-rules.ts) or `privateHosts` (the session's effective `network.private_hosts`, see
 * private-hosts.ts; validated before they get here); `upstream: null` sends the rest direct (no
 * top-level proxy, or it was removed). A direct connection is checked against the egress policy
 * like every other; a proxied one checks the proxy's address, and a destination written as an IP
 * literal, so no proxy or route makes a denied range reachable by address.
 */
export interface Route {
  upstream: Upstream | null;
  bypass: string[];
  privateHosts?: readonly string[];
  routes?: ReadonlyArray<{ hosts: readonly string[]; upstream: Upstream }>;
}

/**
 * The upstream of a route whose proxy is gone (deleted): its destinations fail closed — a 502
 * naming it — instead of falling back to another proxy or a direct connection.
 */
export const ROUTE_CLOSED: Upstream = Object.freeze({ protocol: 'http', host: '(deleted proxy)', port: 0 });

export interface ForwarderStats {
  requests: number;
  tunnels: number;
  /** Requests and tunnels that went direct because of a bypass rule or a private host. */
  direct: number;
  failures: number;
}

export interface LocalForwarder {
  readonly port: number;
  /** `http://127.0.0.1:<port>` for `--proxy-server` ('' when it listens only on a Unix socket). */
  readonly url: string;
  readonly route: Route;
  readonly stats: ForwarderStats;
  /** Switches new traffic to another route and drops open tunnels so they reconnect through it. */
  setRoute(r: Route): void;
  /**
   * The session's egress allowlist (`network.allowed_hosts`, allowed-hosts.ts), checked before
   * the route: null lets every destination through to the route and the egress policy. Kept
   * apart from the route (a proxy switch keeps it); open tunnels it no longer allows are closed.
   */
  setAllowedHosts(list: AllowedHosts | null): void;
  /**
   * Also serves the proxy on a Unix socket (a jailed browser reaches it through its jail
   * helper; runtime/sandbox/browser-jail.ts). Closed with the forwarder.
   */
  listenUnix(socketPath: string): Promise<void>;
  /** Serves one connection accepted elsewhere (a jail's egress socket, runtime/sandbox/session-jail.ts). */
  accept(socket: net.Socket): void;
  close(): Promise<void>;
}

function describe(u: Upstream): string {
  return `${u.host}:${u.port}`;
}

/**
 * Opens a (TLS when the upstream speaks https) connection to the upstream at the address the
 * egress policy resolved and allowed, failing after `timeoutMs`.
 */
function connectUpstream(u: Upstream, address: string, timeoutMs: number, cb: (err: Error | null, socket?: net.Socket) => void): net.Socket {
  const socket =
    u.protocol === 'https'
      ? tls.connect({ host: address, port: u.port, servername: net.isIP(u.host) ? undefined : u.host })
      : net.connect({ host: address, port: u.port });
  let settled = false;
  const settle = (err: Error | null): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    if (err) {
      socket.destroy();
      cb(err);
    } else cb(null, socket);
  };
  const timer = setTimeout(() => settle(new Error(`connect timeout after ${timeoutMs} ms`)), timeoutMs);
  socket.once(u.protocol === 'https' ? 'secureConnect' : 'connect', () => settle(null));
  socket.once('error', (err) => settle(err));
  return socket;
}

function failText(u: Upstream, why: string): string {
  return `Browserdeck proxy: upstream proxy ${describe(u)} failed: ${why}\n`;
}

function splitAuthority(authority: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return m ? { host: m[1], port: Number(m[2]) } : { host: authority, port: 443 };
}

function directUpstream(host: string, port: number): Upstream {
  return { protocol: 'http', host, port };
}

/**
 * Set on the forwarder's own failure answers: the Chromium net error of the failure (a browser
 * behind a proxy only sees the proxy's answer, so the engine's curl reads it from here).
 */
export const NET_ERROR_HEADER = 'x-browserdeck-net-error';

/** Kernel's egress proxy names its failures in this header (telemetry `proxy_error` codes). */
export const KERNEL_PROXY_ERROR_HEADER = 'x-kernel-proxy-error';

function kernelCodeOf(netError: string, direct: boolean): string {
  if (!direct) return 'proxy_unavailable';
  if (netError === 'net::ERR_NAME_NOT_RESOLVED') return 'upstream_dns_failure';
  if (netError === 'net::ERR_CONNECTION_TIMED_OUT') return 'upstream_timeout';
  return 'upstream_connect_failed';
}

function netErrorOf(err: Error | undefined): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'net::ERR_NAME_NOT_RESOLVED';
  if (code === 'ECONNREFUSED') return 'net::ERR_CONNECTION_REFUSED';
  if (code === 'ECONNRESET') return 'net::ERR_CONNECTION_RESET';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'net::ERR_ADDRESS_UNREACHABLE';
  if (code === 'ETIMEDOUT' || /timeout/.test(err?.message ?? '')) return 'net::ERR_CONNECTION_TIMED_OUT';
  return 'net::ERR_CONNECTION_FAILED';
}

function deniedText(err: EgressDenied): string {
  return `Browserdeck proxy: ${err.message}\n`;
}

/**
 * A destination outside the session's allowlist: 403 naming it, Chromium's own error for a
 * destination an administrator blocked, and Kernel's `destination_blocked`.
 */
const NOT_ALLOWED_HEADERS = { [NET_ERROR_HEADER]: 'net::ERR_BLOCKED_BY_ADMINISTRATOR', [KERNEL_PROXY_ERROR_HEADER]: 'destination_blocked' };

function notAllowedText(host: string, port: number): string {
  return `Browserdeck proxy: ${host}:${port} is not in this session's network.allowed_hosts\n`;
}

function routesOf(r: Route): ProxyRoutes<Upstream> {
  return r.routes?.length ? proxyRoutes(r.routes.map((x) => ({ hosts: x.hosts, target: x.upstream }))) : NO_PROXY_ROUTES;
}

export interface ForwarderOptions {
  connectTimeoutMs?: number;
  log?: (msg: string) => void;
  policy?: EgressPolicy;
  /**
   * Listen on a loopback port (default). A jailed browser's forwarder listens only on its
   * Unix socket (`listenUnix`): a host port would let any local process use the session's
   * upstream proxy and its credentials.
   */
  tcp?: boolean;
}

export async function startLocalForwarder(initial: Route, opts: ForwarderOptions = {}): Promise<LocalForwarder> {
  const policy = opts.policy ?? OPEN_EGRESS;
  const unixServers: net.Server[] = [];
  let route = initial;
  let rules: BypassRules = bypassRules(initial.bypass, initial.upstream?.host ?? 'localhost');
  let privateRules: PrivateHosts = initial.privateHosts ? privateHosts(initial.privateHosts) : NO_PRIVATE_HOSTS;
  let routeRules = routesOf(initial);
  let allowed: AllowedHosts | null = null;
  /** The upstream proxy a destination goes through; null: direct. */
  const upstreamFor = (host: string, port: number): Upstream | null => {
    const routed = routeRules.match(host);
    if (routed) return routed;
    if (!route.upstream || rules.matches(host, port) || privateRules.matches(host, port)) return null;
    return route.upstream;
  };
  /**
   * The address to connect to: the destination's when direct, else the proxy's — after the
   * destination, if written as an IP, passed the policy too. Throws EgressDenied.
   */
  const addressFor = async (u: Upstream, direct: boolean, destination: string): Promise<string> => {
    if (u === ROUTE_CLOSED) throw new Error("the proxy of this destination's proxy route was deleted (the route fails closed)");
    const bare = destination.replace(/^\[|\]$/g, '');
    const refused = !direct && net.isIP(bare) ? policy.denial(destination, bare) : undefined;
    if (refused) throw refused;
    return policy.resolve(u.host);
  };
  const timeoutMs = opts.connectTimeoutMs ?? 10_000;
  const sockets = new Set<net.Socket>();
  /** Open CONNECT tunnels by client socket, with the destination they were allowed for. */
  const tunnels = new Map<net.Socket, { host: string; port: number }>();
  const stats: ForwarderStats = { requests: 0, tunnels: 0, direct: 0, failures: 0 };
  const track = (s: net.Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const server = http.createServer((req, res) => {
    stats.requests++;
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Browserdeck proxy: absolute URL required\n');
      return;
    }
    const targetPort = Number(target.port || 80);
    if (allowed && !allowed.allows(target.hostname, targetPort)) {
      stats.failures++;
      const text = notAllowedText(target.hostname, targetPort);
      opts.log?.(text.trim());
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...NOT_ALLOWED_HEADERS }).end(text);
      return;
    }
    const via = upstreamFor(target.hostname, targetPort);
    const direct = via === null;
    const u = via ?? directUpstream(target.hostname.replace(/^\[|\]$/g, ''), Number(target.port || 80));
    // Raw pairs: repeated headers (two Cookie or X-Thing lines) reach the site as sent.
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (!/^proxy-(authorization|connection)$/i.test(req.rawHeaders[i])) headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    const auth = direct ? undefined : proxyAuthorization(u);
    if (auth) headers.push('Proxy-Authorization', auth);
    if (direct) stats.direct++;
    const fail = (why: string, err?: Error): void => {
      stats.failures++;
      const text = direct ? `Browserdeck proxy: direct connection to ${describe(u)} failed: ${why}\n` : failText(u, why);
      opts.log?.(text.trim());
      // What Chromium would have reported connecting itself (the curl API answers with it).
      const netError = direct ? netErrorOf(err) : 'net::ERR_PROXY_CONNECTION_FAILED';
      if (!res.headersSent)
        res.writeHead(502, {
          'content-type': 'text/plain; charset=utf-8',
          connection: 'close',
          [NET_ERROR_HEADER]: netError,
          [KERNEL_PROXY_ERROR_HEADER]: kernelCodeOf(netError, direct),
        });
      res.end(text);
    };
    void addressFor(u, direct, target.hostname).then(
      (address) => request(address),
      (err: Error) => {
        if (!(err instanceof EgressDenied)) return fail(err.message, err);
        stats.failures++;
        opts.log?.(deniedText(err).trim());
        res
          .writeHead(403, {
            'content-type': 'text/plain; charset=utf-8',
            connection: 'close',
            [NET_ERROR_HEADER]: 'net::ERR_NETWORK_ACCESS_DENIED',
            [KERNEL_PROXY_ERROR_HEADER]: 'network_policy_denied',
          })
          .end(deniedText(err));
      },
    );
    const request = (address: string): void => {
      const upReq = (u.protocol === 'https' ? https : http).request({
        host: address,
        port: u.port,
        method: req.method,
        path: direct ? target.pathname + target.search : req.url, // absolute form for a proxy, origin form direct
        headers,
        agent: false,
        ...(u.protocol === 'https' && !net.isIP(u.host) ? { servername: u.host } : {}),
      });
      // Only connecting is bounded: a slow response (long poll, big download) is the site's business.
      upReq.on('socket', (sock) => {
        if (!sock.connecting) return;
        const t = setTimeout(() => upReq.destroy(new Error(`connect timeout after ${timeoutMs} ms`)), timeoutMs);
        sock.once('connect', () => clearTimeout(t));
        sock.once('close', () => clearTimeout(t));
      });
      upReq.on('response', (upRes) => {
        if (upRes.statusCode === 407) {
          upRes.resume();
          fail('proxy authentication rejected (407)');
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, upRes.rawHeaders);
        upRes.pipe(res);
      });
      upReq.on('error', (err) => fail(err.message, err));
      req.pipe(upReq);
    };
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    stats.tunnels++;
    track(client);
    const target = req.url ?? '';
    const dest = splitAuthority(target);
    client.on('error', () => {});
    if (allowed && !allowed.allows(dest.host, dest.port)) {
      stats.failures++;
      const body = notAllowedText(dest.host, dest.port);
      opts.log?.(body.trim());
      const headers = Object.entries(NOT_ALLOWED_HEADERS)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      client.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    tunnels.set(client, dest);
    client.once('close', () => tunnels.delete(client));
    const via = upstreamFor(dest.host, dest.port);
    const direct = via === null;
    const u = via ?? directUpstream(dest.host, dest.port);
    if (direct) stats.direct++;
    const refuse = (why: string): void => {
      stats.failures++;
      const body = direct ? `Browserdeck proxy: direct connection to ${target} failed: ${why}\n` : failText(u, why);
      opts.log?.(body.trim());
      client.end(
        `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    void addressFor(u, direct, dest.host).then(
      (address) => tunnel(address),
      (err: Error) => {
        if (!(err instanceof EgressDenied)) return refuse(err.message);
        stats.failures++;
        const body = deniedText(err);
        opts.log?.(body.trim());
        client.end(
          `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nX-Kernel-Proxy-Error: network_policy_denied\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      },
    );
    const tunnel = (address: string): void => {
      const up = connectUpstream(u, address, timeoutMs, (err, socket) => {
        if (err || !socket) return refuse(err?.message ?? 'no connection');
        const splice = (rest: Buffer): void => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (rest.length) client.write(rest);
          if (head.length) socket.write(head);
          socket.pipe(client);
          client.pipe(socket);
          socket.on('error', () => client.destroy());
          socket.on('close', () => client.destroy());
          client.on('close', () => socket.destroy());
        };
        if (direct) return splice(Buffer.alloc(0));
        const auth = proxyAuthorization(u);
        socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
        let buf = Buffer.alloc(0);
        const headTimer = setTimeout(() => {
          socket.destroy();
          refuse('no answer to CONNECT');
        }, timeoutMs);
        const onData = (chunk: Buffer): void => {
          buf = Buffer.concat([buf, chunk]);
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) {
            if (buf.length > 65536) onError(new Error('oversized CONNECT answer'));
            return;
          }
          clearTimeout(headTimer);
          socket.off('data', onData);
          socket.off('error', onError);
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(buf.subarray(0, end).toString('latin1'))?.[1] ?? 0);
          if (status !== 200) {
            socket.destroy();
            return refuse(status === 407 ? 'proxy authentication rejected (407)' : `CONNECT ${target} answered ${status || 'garbage'}`);
          }
          splice(buf.subarray(end + 4));
        };
        const onError = (e: Error): void => {
          clearTimeout(headTimer);
          socket.destroy();
          refuse(e.message);
        };
        socket.on('data', onData);
        socket.on('error', onError);
      });
      track(up);
    };
  });
  server.on('connection', track);

  if (opts.tcp !== false) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
  }
  const port = opts.tcp !== false ? (server.address() as AddressInfo).port : 0;
  let closing: Promise<void> | undefined;
  return {
    port,
    url: port ? `http://127.0.0.1:${port}` : '',
    get route() {
      return route;
    },
    stats,
    setRoute(r) {
      const nextPrivate = r.privateHosts ? privateHosts(r.privateHosts) : NO_PRIVATE_HOSTS;
      const nextRoutes = routesOf(r);
      route = r;
      routeRules = nextRoutes;
      rules = bypassRules(r.bypass, r.upstream?.host ?? 'localhost');
      privateRules = nextPrivate;
      for (const t of tunnels.keys()) t.destroy();
    },
    setAllowedHosts(list) {
      allowed = list;
      if (list) for (const [t, d] of tunnels) if (!list.allows(d.host, d.port)) t.destroy();
    },
    accept(socket) {
      if (closing) socket.destroy();
      else server.emit('connection', socket);
    },
    async listenUnix(socketPath) {
      const unix = net.createServer((s) => server.emit('connection', s));
      unixServers.push(unix);
      await new Promise<void>((resolve, reject) => {
        unix.once('error', reject);
        unix.listen(socketPath, () => resolve());
      });
      unix.on('error', () => {});
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const u of unixServers) u.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}
