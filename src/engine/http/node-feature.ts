/**
 * Multi-node (PostgreSQL only: SQLite is one node by construction). Announces this engine in
 * the node registry and heartbeats; forwards HTTP requests and WebSocket upgrades for sessions
 * and pools that other alive nodes run; ends what dead nodes ran (`node_lost`) and adopts their
 * pools; ends local browsers whose rows another node ended. See README "Several nodes".
 */
import type { FastifyInstance } from 'fastify';
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import type { SessionManager } from '../domain/sessions/session-manager.js';
import type { PoolService } from '../domain/pools/pool-service.js';
import { authenticateUpgrade } from '../domain/sessions/session-access.js';
import { NodeRegistry } from '../domain/nodes/node-registry.js';
import { NodeRouter, type NodeRoute } from '../domain/nodes/node-routing.js';
import { installNodeForwarding } from './node-forwarding.js';
import { upgradeForwarding } from './node-upgrade-forwarding.js';

export const NODES_SERVICE = 'nodes';

export interface NodesService {
  registry: NodeRegistry;
  router: NodeRouter;
  /** The address this node listens on (the default `internal_url`). */
  listenUrl(): string;
}

const LOCAL: NodeRoute = { kind: 'local' };

function checkedNodeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`nodeUrl (--node-url / BROWSERDECK_NODE_URL) is not a URL: ${url}`);
  }
  if (u.protocol !== 'http:') throw new Error(`nodeUrl must be an http:// address other nodes can reach, not ${url}`);
  return u.origin;
}

export const nodesFeature: Feature = {
  name: 'nodes',
  async register(app: FastifyInstance, ctx: EngineContext) {
    if (ctx.store.dialect !== 'postgres') return;
    const configured = checkedNodeUrl(ctx.config.nodeUrl);
    const sessions = ctx.services.sessions as SessionManager;
    const registry = new NodeRegistry(ctx.db, sessions.nodeId, ctx.clock, (err) => ctx.log.warn({ err }, 'node heartbeat failed'));
    const router = new NodeRouter(ctx.db, registry, sessions, () => ctx.services.pools as PoolService | undefined, ctx.clock);
    const service: NodesService = { registry, router, listenUrl: () => configured ?? ctx.listenUrl() };
    ctx.services[NODES_SERVICE] = service;
    // Announced before listening (address filled in at `started`): a session created in between
    // must not look like one of a dead node to the others.
    await registry.register(configured ?? '');

    const forwarding = installNodeForwarding(app, {
      nodeId: registry.nodeId,
      session: (auth, key, ended) => router.session(auth, key, ended),
      pool: (auth, key) => router.pool(auth, key),
      ownerAlive: async (nodeId) => (await registry.stateOf(nodeId)).state === 'alive',
      forget: (nodeId) => registry.forget(nodeId),
      log: ctx.log,
    });
    const upgradePipes = upgradeForwarding({
      nodeId: registry.nodeId,
      forget: (nodeId) => registry.forget(nodeId),
      route: async (req, url, params) => {
        const id = params.id;
        if (!id || sessions.get(id)) return LOCAL;
        // Only a caller of the session's org learns where it runs; others get the local answer (401/404).
        const c = await authenticateUpgrade(req, url, id, sessions.jwt, ctx.apiKeys).catch(() => null);
        return c ? router.sessionById(id, c.orgId, c.projectId) : LOCAL;
      },
    });
    ctx.upgrades.intercept(upgradePipes.intercept);
    ctx.onStop(async () => {
      await registry.markStopped().catch((err) => ctx.log.warn({ err }, 'marking this node stopped failed'));
      await forwarding.close();
      // Piped upgrades are no longer the HTTP server's: without this its close waits for the clients.
      upgradePipes.close();
    });
  },
  async started(ctx: EngineContext) {
    const nodes = ctx.services[NODES_SERVICE] as NodesService | undefined;
    if (!nodes) return;
    await nodes.registry.setUrl(nodes.listenUrl());
    nodes.registry.startHeartbeat(nodes.listenUrl, async () => {
      await nodes.router.reapEndedElsewhere();
      await nodes.router.sweepDeadNodes();
    });
  },
};
