/**
 * `GET /changes`: the change feed (a Browserdeck extension, kept out of the OpenAPI document
 * and so out of Kernel's SDK surface). An SSE stream of `{type: 'upsert'|'delete', resource,
 * id, project_id?}` for every resource created, changed or removed through any client on this
 * engine node, filtered to what the caller may read (domain/org/change-visibility.ts). It opens
 * with `{type: 'hello'}` and sends `{type: 'heartbeat'}` when idle so proxies keep it open.
 * No replay: a reader that reconnects refetches what it shows once.
 */
import type { Feature } from '../feature.js';
import { openSse } from '../http/sse.js';
import { resourceChanges } from '../events/resource-changes.js';
import { changeVisibleTo, requireFeedAccess } from '../domain/org/change-visibility.js';

const HEARTBEAT_MS = 15_000;

export const changesFeature: Feature = {
  name: 'changes',
  register(app, ctx) {
    app.get('/changes', { schema: { hide: true } as object }, async (req, reply) => {
      requireFeedAccess(req.auth);
      const auth = req.auth;
      const sse = openSse(reply, { keepaliveMs: HEARTBEAT_MS, heartbeat: () => ({ type: 'heartbeat' }) });
      // One organization per engine: every change on this bus is in the caller's org.
      const off = resourceChanges(ctx.db).on((e) => {
        if (changeVisibleTo(auth, e)) sse.send(e);
      });
      sse.onClose(off);
      sse.send({ type: 'hello' });
    });
  },
};
