/**
 * Multi-node (PostgreSQL only: SQLite is one node by construction). Announces this engine in
 * the node registry and heartbeats; forwards HTTP requests and WebSocket upgrades for sessions
 * and pools that other alive nodes run; sweeps every second: ends what dead nodes ran
 * (`node_lost`: lease freed or heartbeat stale) and adopts their pools; ends local browsers whose rows another node ended; places a create asking for another
 * node's region on that node. See docs/operate/postgresql-and-nodes.md.
 */
import type { Feature } from '../feature.js';
import { authenticateUpgrade } from '../domain/sessions/session-access.js';
import type { NodeRoute } from '../domain/nodes/node-routing.js';
import { DevtoolsTokens } from '../domain/sessions/devtools-token.js';
import { TraceTokens } from '../domain/sessions/trace-token.js';
import { installNodeForwarding, type TokenPage } from './node-forwarding.js';
import { upgradeForwarding } from './node-upgrade-forwarding.js';

const LOCAL: NodeRoute = { kind: 'local' };

export const nodesFeature: Feature<'nodes' | 'sessions'> = {
  name: 'nodes',
  async register(app, ctx, { nodes, sessions }) {
    if (!nodes) return; // SQLite: one node
    const { registry, router } = nodes;
    // Announced before listening (address filled in at `started`): a session created in between
    // must not look like one of a dead node to the others.
    await registry.register(nodes.nodeUrl ?? '');

    // A tool page's token (DevTools frontend, trace viewer) names its session: only a valid one is routed.
    const tokens = { devtools: new DevtoolsTokens(sessions.jwt), trace: new TraceTokens(sessions.jwt) };
    const tokenSession = async (page: TokenPage, token: string): Promise<NodeRoute> => {
      const c = await tokens[page].verify(token);
      return c ? router.sessionById(c.sessionId, c.orgId, c.projectId) : LOCAL;
    };

    const forwarding = installNodeForwarding(app, {
      nodeId: registry.nodeId,
      session: (auth, key, ended) => router.session(auth, key, ended),
      pool: (auth, key) => router.pool(auth, key),
      placement: (region) => router.placement(region),
      tokenSession,
      ownerAlive: async (nodeId) => (await registry.stateOf(nodeId)).state === 'alive',
      forget: (nodeId) => registry.forget(nodeId),
      log: ctx.log,
    });
    const upgradePipes = upgradeForwarding({
      nodeId: registry.nodeId,
      forget: (nodeId) => registry.forget(nodeId),
      route: async (req, url, params, facts) => {
        if (facts.forward === 'devtools-token') return tokenSession('devtools', params.token ?? ''); // the DevTools frontend's socket
        const id = facts.session ? params[facts.session] : undefined;
        if (!id || sessions.get(id)) return LOCAL;
        // Only a caller of the session's org learns where it runs; others get the local answer (401/404).
        const c = await authenticateUpgrade(req, url, id, sessions.jwt, ctx.apiKeys).catch(() => null);
        return c ? router.sessionById(id, c.orgId, c.projectId) : LOCAL;
      },
    });
    ctx.upgrades.intercept(upgradePipes.intercept);
    ctx.onStop(async () => {
      nodes.sweeper.stop();
      await registry.markStopped().catch((err) => ctx.log.warn({ err }, 'marking this node stopped failed'));
      await forwarding.close();
      // Piped upgrades are no longer the HTTP server's: without this its close waits for the clients.
      upgradePipes.close();
    });
  },
  async started(_ctx, { nodes }) {
    if (!nodes) return;
    await nodes.registry.setUrl(nodes.listenUrl());
    nodes.registry.startHeartbeat(nodes.listenUrl);
    nodes.sweeper.start();
  },
};
