/**
 * Routes a session's browser traffic through a proxy record: one LocalForwarder per session
 * (loopback, random port) that the browser's `--proxy-server` points at. Implements the
 * session manager's ProxyHooks, switches a running session to another proxy (or none) without
 * restarting Chromium, closes the forwarder when the session ends, and tells telemetry which
 * proxy a session is using (`activeProxy`). It lives in domain/ because it looks proxies up
 * per caller (project scoping, 404 as a field error); the forwarder itself is runtime.
 *
 * A session's `network.proxy_routes` ride on the same forwarder: each route's proxy is looked
 * up like the top-level one (same project), the forwarder picks per destination, and a route
 * whose proxy is deleted fails closed (ROUTE_CLOSED). The CA bundles of every proxy a session
 * uses (`ca_bundle`) are handed to its jail before launch (`caCertificates`); a live switch to a
 * proxy whose CA the browser was not launched with is refused.
 *
 * Launch flags: every destination, loopback included (`<-loopback>`), goes to the forwarder,
 * which applies `bypass_hosts` and the loopback rule itself (runtime/proxy-forwarder/bypass-rules.ts) so they can change
 * live. WebRTC may only use proxied paths (`--webrtc-ip-handling-policy=disable_non_proxied_udp`;
 * Chromium ignores the `--force-…` spelling): no host or STUN
 * candidates reveal the machine's addresses.
 */
import type { AuthContext } from '../org/auth-context.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { Proxies, ProxyRow } from './proxies.js';
import type { ProxyRef } from '../sessions/session-proxy-choice.js';
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import { ROUTE_CLOSED, startLocalForwarder, type LocalForwarder, type Route } from '../../runtime/proxy-forwarder/local-forwarder.js';
import type { EgressPolicy } from '../../runtime/proxy-forwarder/egress-policy.js';

export interface ActiveProxy {
  proxy_id: string;
  type: ProxyRow['type'];
  name?: string;
  /** `host:port` of the upstream (never credentials). */
  upstream: string;
  /** `127.0.0.1:<port>` an unjailed browser talks to; `jail` when only its jail reaches it. */
  forwarder: string;
}

export interface ResolvedSessionProxy {
  id: string | null;
  routes?: Array<{ hosts: string[]; proxy: { id: string } }>;
  caCertificates: string[];
  launchArgs: string[];
  egress: LocalForwarder;
  /** Binds the forwarder to the session: closed when it ends. */
  attach(handle: SessionHandle): void;
  /** Closes the forwarder (launch failed before attach, or the session ended). */
  release(): Promise<void>;
}

/** One of a session's `network.proxy_routes`; `proxy` null once that proxy was deleted (fail closed). */
interface SessionRoute {
  hosts: string[];
  proxy: ProxyRow | null;
}

interface Entry {
  forwarder: LocalForwarder;
  /** null after the proxy was removed from the running session (or it had only routes). */
  proxy: ProxyRow | null;
  /** The session's effective private hosts: kept across proxy switches (they are create-only). */
  privateHosts: readonly string[];
  /** Its proxy routes (create-only, kept across switches). */
  routes: SessionRoute[];
  /** The CA certificates its browser was launched trusting (base64 DER). */
  trusted: ReadonlySet<string>;
}

type RouteSelector = { hosts: string[]; proxy: { id?: string; name?: string } };

export function proxyLaunchArgs(forwarderUrl: string): string[] {
  return [`--proxy-server=${forwarderUrl}`, '--proxy-bypass-list=<-loopback>', '--webrtc-ip-handling-policy=disable_non_proxied_udp'];
}

export class SessionProxyRouting {
  private readonly bySession = new Map<string, Entry>();
  private readonly unattached = new Set<LocalForwarder>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly proxies: Proxies,
    private readonly opts: { connectTimeoutMs: number; log?: (msg: string) => void; policy?: EgressPolicy },
  ) {
    // Kernel: a route whose proxy becomes unavailable fails closed (never direct, never the top-level proxy).
    this.unsubscribe = proxies.onDeleted((id) => {
      for (const e of this.bySession.values()) {
        if (!e.routes.some((r) => r.proxy?.id === id)) continue;
        for (const r of e.routes) if (r.proxy?.id === id) r.proxy = null;
        e.forwarder.setRoute(this.route(e.proxy, e.privateHosts, e.routes));
      }
    });
  }

  private route(row: ProxyRow | null, privateHosts: readonly string[], routes: SessionRoute[]): Route {
    return {
      upstream: row ? this.proxies.upstreamOf(row) : null,
      bypass: row ? (JSON.parse(row.bypass_hosts) as string[]) : [],
      privateHosts,
      routes: routes.map((r) => ({ hosts: r.hosts, upstream: r.proxy ? this.proxies.upstreamOf(r.proxy) : ROUTE_CLOSED })),
    };
  }

  /** `field` names the body field in a 404's details (`proxy_id`, `network.proxy_routes[0].proxy`). */
  private async lookup(auth: AuthContext, proxyId: ProxyRef, field = 'proxy_id'): Promise<ProxyRow> {
    // By name (typed `proxy: {name}`): exactly one active proxy of the project must have it.
    if (typeof proxyId !== 'string') return this.proxies.select(auth.projectId, proxyId);
    try {
      return await this.proxies.get(auth.projectId, proxyId);
    } catch (err) {
      // A session body naming an unknown proxy is a bad field, not a missing URL.
      if (err instanceof DomainError && err.status === 404)
        throw new DomainError(404, 'not_found', `proxy '${proxyId}' not found`, [
          { code: 'invalid_field', message: `${field}: no such proxy in this project` },
        ]);
      throw err;
    }
  }

  /** Each proxy the routes name is looked up once, however many of the (up to 50) routes name it. */
  private lookupRoutes(auth: AuthContext, routes: RouteSelector[]): Promise<SessionRoute[]> {
    const keyOf = (p: RouteSelector['proxy']): string => (p.id !== undefined ? `id:${p.id}` : `name:${p.name}`);
    const rows = new Map<string, Promise<ProxyRow>>();
    routes.forEach((r, i) => {
      const key = keyOf(r.proxy);
      if (!rows.has(key)) rows.set(key, this.lookup(auth, r.proxy.id ?? { name: r.proxy.name! }, `network.proxy_routes[${i}].proxy`));
    });
    return Promise.all(routes.map(async (r) => ({ hosts: r.hosts, proxy: await rows.get(keyOf(r.proxy))! })));
  }

  /**
   * `privateHosts`: the session's effective `network.private_hosts` (already validated; the
   * session manager applies the defaults), reached directly instead of through the proxy.
   * `routes`: its checked `network.proxy_routes`. `proxyId` null: no top-level proxy. `jailed`:
   * the create's one answer to whether its browser is jailed (session-jail-choice.ts).
   */
  async resolve(
    auth: AuthContext,
    proxyId: ProxyRef | null,
    opts: { privateHosts?: readonly string[]; routes?: RouteSelector[]; jailed?: boolean } = {},
  ): Promise<ResolvedSessionProxy> {
    const row = proxyId === null ? null : await this.lookup(auth, proxyId);
    const routes = await this.lookupRoutes(auth, opts.routes ?? []);
    const privateHosts = opts.privateHosts ?? [];
    const used = new Set([row, ...routes.map((r) => r.proxy)]); // a proxy named by several routes is one row
    const trusted = new Set([...used].flatMap((p) => (p ? this.proxies.caCertificatesOf(p) : [])));
    // A jailed browser reaches its forwarder through its jail only: no loopback port.
    const tcp = !opts.jailed;
    const forwarder = await startLocalForwarder(this.route(row, privateHosts, routes), { ...this.opts, tcp });
    this.unattached.add(forwarder);
    let sessionId: string | undefined;
    return {
      id: row?.id ?? null,
      ...(routes.length ? { routes: routes.map((r) => ({ hosts: r.hosts, proxy: { id: r.proxy!.id } })) } : {}),
      caCertificates: [...trusted],
      launchArgs: tcp ? proxyLaunchArgs(forwarder.url) : [],
      egress: forwarder,
      attach: (handle) => {
        this.unattached.delete(forwarder);
        sessionId = handle.id;
        this.bySession.set(handle.id, { forwarder, proxy: row, privateHosts, routes, trusted });
        handle.scope.defer('proxy route', () => this.releaseSession(handle.id));
      },
      release: async () => {
        this.unattached.delete(forwarder);
        if (sessionId) await this.releaseSession(sessionId);
        else await forwarder.close();
      },
    };
  }

  private async releaseSession(sessionId: string): Promise<void> {
    const entry = this.bySession.get(sessionId);
    this.bySession.delete(sessionId);
    await entry?.forwarder.close();
  }

  /**
   * Points a running session at another proxy without restarting its browser. Only sessions
   * launched with a proxy have a forwarder to switch; others need a new session (422).
   */
  async switchProxy(auth: AuthContext, sessionId: string, proxyId: ProxyRef | null): Promise<ProxyRow | null> {
    const entry = this.bySession.get(sessionId);
    if (!entry)
      throw DomainError.unprocessable(
        'this session was started without a proxy (its browser has no forwarder to switch); create a new session with proxy_id',
        'proxy_change_unsupported',
      );
    if (proxyId === null) {
      // The browser keeps pointing at the forwarder, which now connects directly (routes stay).
      entry.forwarder.setRoute(this.route(null, entry.privateHosts, entry.routes));
      entry.proxy = null;
      return null;
    }
    const row = await this.lookup(auth, proxyId);
    // Chromium reads trusted CAs at launch only: a TLS-intercepting proxy it does not trust would fail every HTTPS page.
    if (this.proxies.caCertificatesOf(row).some((c) => !entry.trusted.has(c)))
      throw DomainError.unprocessable(
        `proxy '${row.id}' has a ca_bundle this session's browser was not launched trusting: create a new session with this proxy`,
        'proxy_ca_bundle_needs_new_session',
      );
    entry.forwarder.setRoute(this.route(row, entry.privateHosts, entry.routes));
    entry.proxy = row;
    return row;
  }

  activeProxy(sessionId: string): ActiveProxy | undefined {
    const e = this.bySession.get(sessionId);
    const u = e?.forwarder.route.upstream;
    if (!e || !e.proxy || !u) return undefined;
    return {
      proxy_id: e.proxy.id,
      type: e.proxy.type,
      name: e.proxy.name ?? undefined,
      upstream: `${u.host}:${u.port}`,
      forwarder: e.forwarder.port ? `127.0.0.1:${e.forwarder.port}` : 'jail',
    };
  }

  forwarderOf(sessionId: string): LocalForwarder | undefined {
    return this.bySession.get(sessionId)?.forwarder;
  }

  async closeAll(): Promise<void> {
    this.unsubscribe();
    const all = [...this.unattached, ...[...this.bySession.values()].map((e) => e.forwarder)];
    this.unattached.clear();
    this.bySession.clear();
    await Promise.all(all.map((f) => f.close()));
  }
}
