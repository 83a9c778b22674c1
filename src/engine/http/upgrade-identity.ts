/**
 * What the audit log should know about a WebSocket upgrade that plain HTTP hooks never see:
 * the route template the upgrade router matched (`/browsers/:id/cdp`) and the credential the
 * handler accepted. Kept per request in weak maps, so nothing outlives the request; written by
 * the router and by handlers after they authenticate, read by the upgrade audit when the socket closes.
 */
import type { IncomingMessage } from 'node:http';

export interface UpgradeIdentity {
  orgId: string;
  strategy: 'api_key' | 'session_jwt' | 'invocation_key';
  /** The API key id, or `session:<id>` for a session JWT. */
  userId: string;
  email: string;
  /** The route template, when the handler knows it better than the router did. */
  route?: string;
}

const identities = new WeakMap<IncomingMessage, UpgradeIdentity>();
const routes = new WeakMap<IncomingMessage, { route: string; service: string }>();
const forwarded = new WeakSet<IncomingMessage>();

/** Multi-node: this upgrade was piped to the node that owns its session, which audits it. */
export function noteUpgradeForwarded(req: IncomingMessage): void {
  forwarded.add(req);
}

export function upgradeWasForwarded(req: IncomingMessage): boolean {
  return forwarded.has(req);
}

/** Lets an upgrade handler tell the audit log who it accepted (call after authenticating). */
export function noteUpgradeIdentity(req: IncomingMessage, who: UpgradeIdentity): void {
  identities.set(req, who);
}

/** The upgrade router records the template of the route that took the request and its `audit` fact. */
export function noteUpgradeRoute(req: IncomingMessage, route: string, service: string): void {
  routes.set(req, { route, service });
}

export function upgradeIdentityOf(req: IncomingMessage): UpgradeIdentity | undefined {
  return identities.get(req);
}

export function upgradeRouteOf(req: IncomingMessage): string {
  return identities.get(req)?.route ?? routes.get(req)?.route ?? '';
}

/** The matched route's audit service; undefined when no route took the upgrade. */
export function upgradeServiceOf(req: IncomingMessage): string | undefined {
  return routes.get(req)?.service;
}
