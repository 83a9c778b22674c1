/**
 * `GET /changes`: the change feed (a Browserdeck extension, kept out of the OpenAPI document
 * and so out of Kernel's SDK surface). An SSE stream of `{type: 'upsert'|'delete', resource,
 * id, project_id?}` for every resource created, changed or removed through any client on this
 * engine, filtered to what the caller may read (domain/org/change-visibility.ts); with several
 * nodes on one PostgreSQL database, changes made on the others too (events/cross-node-changes.ts). It opens
 * with `{type: 'hello'}` and sends `{type: 'heartbeat'}` when idle so proxies keep it open.
 * No replay: a reader that reconnects refetches what it shows once.
 */
import type { Feature } from '../feature.js';
import { openSse } from '../http/sse.js';
import { changeVisibleTo, requireFeedAccess } from '../domain/org/change-visibility.js';
import { relayChangesAcrossNodes } from '../events/cross-node-changes.js';
import { route } from '../route.js';

const HEARTBEAT_MS = 15_000;

export const changesFeature: Feature = {
  name: 'changes',
  async register(app, ctx) {
    const changes = ctx.changes;
    if (ctx.store.dialect === 'postgres' && ctx.config.databaseUrl) {
      const relay = await relayChangesAcrossNodes({
        db: ctx.db,
        databaseUrl: ctx.config.databaseUrl,
        bus: changes,
        onError: (err) => ctx.log.warn({ err }, 'change feed relay between nodes'),
      });
      ctx.onStop(() => relay.close());
    }
    route(app, 'GET /changes', async (req, reply) => {
      requireFeedAccess(req.auth);
      const auth = req.auth;
      const sse = openSse(reply, { keepaliveMs: HEARTBEAT_MS, heartbeat: () => ({ type: 'heartbeat' }) });
      const off = changes.on((c) => {
        if (changeVisibleTo(auth, c)) sse.send(c.event);
      });
      sse.onClose(off);
      sse.send({ type: 'hello' });
    });
  },
};
