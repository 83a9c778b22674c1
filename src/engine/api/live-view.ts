/**
 * Live view: `GET /browsers/{id}/live?jwt=…[&readOnly=true]` serves the viewer page and
 * `/browsers/{id}/live/ws` (same query) its WebSocket (`runtime/live-view/live-view-server.ts`),
 * over `services.liveView` (cursor state other features set). Works for headless and headful
 * sessions alike, since both are fed by the CDP screencast.
 */
import type { Feature } from '../feature.js';
import { route } from '../route.js';
import { liveViewHtml } from '../runtime/live-view/live-view-page.js';
import { liveViewServer } from '../runtime/live-view/live-view-server.js';

export const liveViewFeature: Feature<'sessions' | 'liveView'> = {
  name: 'live-view',
  register(app, ctx, { sessions, liveView }) {
    // The engine's own viewer page (its CSP below); the screen arrives as images over its WebSocket.
    route(app, 'GET /browsers/:id/live', { config: { enginePage: true } }, async (req, reply) => {
      const handle = await sessions.require(req.auth, req.params.id);
      reply.header('content-type', 'text/html; charset=utf-8');
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('content-security-policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'");
      return reply.send(liveViewHtml(handle.id));
    });

    const server = liveViewServer(liveView);
    ctx.onStop(() => server.close());
    ctx.upgrades.add('/browsers/:id/live/ws', async (req, socket, head, params, url) => {
      const handle = await sessions.requireUpgrade(req, url, params.id); // a failure: the router answers it
      const readOnly = ['true', '1'].includes(url.searchParams.get('readOnly') ?? url.searchParams.get('readonly') ?? '');
      server.accept(req, socket, head, handle, readOnly);
    });
  },
};
