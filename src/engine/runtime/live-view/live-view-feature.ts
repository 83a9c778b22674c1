/**
 * Live view: `GET /browsers/{id}/live?jwt=…[&readOnly=true]` serves the viewer page and
 * `/browsers/{id}/live/ws` (same query) its WebSocket, over `services.liveView` (cursor state
 * other features set). Works for headless and headful sessions alike, since
 * both are fed by the CDP screencast.
 */
import { WebSocketServer } from 'ws';
import type { Feature } from '../../feature.js';
import { ROUTES } from '../../../shared/wire/routes/route-table.js';
import { liveViewHtml } from './live-view-page.js';
import { serveViewer } from './live-view-socket.js';

export const liveViewFeature: Feature<'sessions' | 'liveView'> = {
  name: 'live-view',
  register(app, ctx, { sessions, liveView }) {
    // Registered from its table entry by hand: runtime/ stays below the engine's route helper.
    const live = ROUTES['GET /browsers/:id/live'];
    app.get(
      '/browsers/:id/live',
      {
        // The engine's own viewer page (its CSP below); the screen arrives as images over its WebSocket.
        config: { enginePage: true, ...live.facts },
        schema: live.schema,
      },
      async (req, reply) => {
        const handle = await sessions.require(req.auth, req.params.id);
        reply.header('content-type', 'text/html; charset=utf-8');
        reply.header('cache-control', 'no-store');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('content-security-policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'");
        return reply.send(liveViewHtml(handle.id));
      },
    );

    const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
    ctx.onStop(() => {
      for (const c of wss.clients) c.close(1001, 'engine stopping');
      wss.close();
    });
    ctx.upgrades.add('/browsers/:id/live/ws', async (req, socket, head, params, url) => {
      const handle = await sessions.requireUpgrade(req, url, params.id); // a failure: the router answers it
      const readOnly = ['true', '1'].includes(url.searchParams.get('readOnly') ?? url.searchParams.get('readonly') ?? '');
      wss.handleUpgrade(req, socket, head, (ws) => serveViewer(ws, handle, { readOnly, liveView }));
    });
  },
};
