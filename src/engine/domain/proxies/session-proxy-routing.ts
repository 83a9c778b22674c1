/**
 * Routes a session's browser traffic through a proxy record: one LocalForwarder per session
 * (loopback, random port) that the browser's `--proxy-server` points at. Implements the
 * session manager's ProxyHooks, switches a running session to another proxy (or none) without
 * restarting Chromium, closes the forwarder when the session ends, and tells telemetry which
 * proxy a session is using (`activeProxy`). It lives in domain/ because it looks proxies up
 * per caller (project scoping, 404 as a field error); the forwarder itself is runtime.
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
import { startLocalForwarder, type LocalForwarder, type Route } from '../../runtime/proxy-forwarder/local-forwarder.js';
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
  id: string;
  launchArgs: string[];
  egress: LocalForwarder;
  /** Binds the forwarder to the session: closed when it ends. */
  attach(handle: SessionHandle): void;
  /** Closes the forwarder (launch failed before attach, or the session ended). */
  release(): Promise<void>;
}

interface Entry {
  forwarder: LocalForwarder;
  /** null after the proxy was removed from the running session. */
  proxy: ProxyRow | null;
  /** The session's effective private hosts: kept across proxy switches (they are create-only). */
  privateHosts: readonly string[];
}

export function proxyLaunchArgs(forwarderUrl: string): string[] {
  return [`--proxy-server=${forwarderUrl}`, '--proxy-bypass-list=<-loopback>', '--webrtc-ip-handling-policy=disable_non_proxied_udp'];
}

export class SessionProxyRouting {
  private readonly bySession = new Map<string, Entry>();
  private readonly unattached = new Set<LocalForwarder>();

  constructor(
    private readonly proxies: Proxies,
    private readonly opts: { connectTimeoutMs: number; log?: (msg: string) => void; policy?: EgressPolicy; jailed?: () => Promise<boolean> },
  ) {}

  private route(row: ProxyRow, privateHosts: readonly string[]): Route {
    return { upstream: this.proxies.upstreamOf(row), bypass: JSON.parse(row.bypass_hosts) as string[], privateHosts };
  }

  private async lookup(auth: AuthContext, proxyId: ProxyRef): Promise<ProxyRow> {
    // By name (typed `proxy: {name}`): exactly one active proxy of the project must have it.
    if (typeof proxyId !== 'string') return this.proxies.select(auth.projectId, proxyId);
    try {
      return await this.proxies.get(auth.projectId, proxyId);
    } catch (err) {
      // A session body naming an unknown proxy is a bad field, not a missing URL.
      if (err instanceof DomainError && err.status === 404)
        throw new DomainError(404, 'not_found', `proxy '${proxyId}' not found`, [
          { code: 'invalid_field', message: 'proxy_id: no such proxy in this project' },
        ]);
      throw err;
    }
  }

  /**
   * `privateHosts`: the session's effective `network.private_hosts` (already validated; the
   * session manager applies the defaults), reached directly instead of through the proxy.
   */
  async resolve(auth: AuthContext, proxyId: ProxyRef, opts: { privateHosts?: readonly string[] } = {}): Promise<ResolvedSessionProxy> {
    const row = await this.lookup(auth, proxyId);
    const privateHosts = opts.privateHosts ?? [];
    // A jailed browser reaches its forwarder through its jail only: no loopback port.
    const tcp = !(await this.opts.jailed?.());
    const forwarder = await startLocalForwarder(this.route(row, privateHosts), { ...this.opts, tcp });
    this.unattached.add(forwarder);
    let sessionId: string | undefined;
    return {
      id: row.id,
      launchArgs: tcp ? proxyLaunchArgs(forwarder.url) : [],
      egress: forwarder,
      attach: (handle) => {
        this.unattached.delete(forwarder);
        sessionId = handle.id;
        this.bySession.set(handle.id, { forwarder, proxy: row, privateHosts });
        handle.onEnd(() => this.releaseSession(handle.id));
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
      // The browser keeps pointing at the forwarder, which now connects directly.
      entry.forwarder.setRoute({ upstream: null, bypass: [], privateHosts: entry.privateHosts });
      entry.proxy = null;
      return null;
    }
    const row = await this.lookup(auth, proxyId);
    entry.forwarder.setRoute(this.route(row, entry.privateHosts));
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
    const all = [...this.unattached, ...[...this.bySession.values()].map((e) => e.forwarder)];
    this.unattached.clear();
    this.bySession.clear();
    await Promise.all(all.map((f) => f.close()));
  }
}
