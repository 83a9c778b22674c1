/**
 * What a session launch asks of other services: profiles (the ProfileService of
 * domain/profiles: restore before launch, save at the end) and proxies (ProxyHooks: launch
 * flags, implemented by domain/proxies/session-proxy-routing.ts). compose.ts hands both to the
 * session manager.
 */
import type { AuthContext } from '../org/auth-context.js';
import type { SessionHandle } from '../../runtime/session/session-handle.js';
import type { LocalForwarder } from '../../runtime/proxy-forwarder/local-forwarder.js';
import type { ProxyRef } from './session-proxy-choice.js';
export type { ProfileSelector, ProfileService, ProfileBinding } from '../profiles/profile-binding.js';

/** A proxy resolved for one session launch (see domain/proxies/session-proxy-routing.ts). */
export interface SessionProxy {
  /** The top-level proxy; null when only `network.proxy_routes` name proxies. */
  id: string | null;
  /** The session's `network.proxy_routes`, each proxy by id (as the Session object reports them). */
  routes?: Array<{ hosts: string[]; proxy: { id: string } }>;
  /**
   * CA certificates (base64 DER) of a TLS-intercepting proxy among them (`ca_bundle`): the
   * session's browser must trust them from launch (session jail, managed policy).
   */
  caCertificates?: string[];
  /** Flags for an unjailed browser (`--proxy-server` at the forwarder's loopback port). */
  launchArgs: string[];
  /** The forwarder itself: a jailed browser reaches it through its jail (Unix socket). */
  egress?: LocalForwarder;
  /** Binds per-session resources (the local forwarder) to the session: released when it ends. */
  attach?(handle: SessionHandle): void;
  /** Releases them (the create's scope owns this: a launch abandoned, or the session ended). */
  release?(): Promise<void>;
}

export interface ProxyHooks {
  /**
   * Resolves a proxy (id, or `{name}` matching one active proxy; null: none at the top level)
   * for this caller into Chromium launch flags; throws DomainError when unusable.
   * `privateHosts`: the session's effective `network.private_hosts`, reached without the proxy;
   * `routes`: its checked `network.proxy_routes`, whose proxies are resolved the same way.
   * `jailed`: the browser runs in the browser jail (session-jail-choice.ts), which reaches the
   * forwarder through its own socket; otherwise the forwarder listens on a loopback port.
   */
  resolve(
    auth: AuthContext,
    proxy: ProxyRef | null,
    opts?: { privateHosts?: readonly string[]; routes?: Array<{ hosts: string[]; proxy: { id?: string; name?: string } }>; jailed?: boolean },
  ): Promise<SessionProxy>;
  /** Points a running session at another proxy (null: none) without restarting its browser. */
  switchProxy(auth: AuthContext, sessionId: string, proxy: ProxyRef | null): Promise<{ id: string } | null>;
}
