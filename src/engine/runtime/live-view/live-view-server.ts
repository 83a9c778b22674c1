/**
 * The live view's WebSocket server: takes an upgrade already authorized for a session
 * (`api/live-view.ts`) and serves it one viewer (`live-view-socket.ts`); at engine stop every
 * viewer gets a 1001 close.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { SessionHandle } from '../session/session-handle.js';
import type { LiveViewService } from './live-view-state.js';
import { serveViewer } from './live-view-socket.js';

export interface LiveViewServer {
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, handle: SessionHandle, readOnly: boolean): void;
  close(): void;
}

export function liveViewServer(liveView: LiveViewService): LiveViewServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  return {
    accept(req, socket, head, handle, readOnly) {
      wss.handleUpgrade(req, socket, head, (ws) => serveViewer(ws, handle, { readOnly, liveView }));
    },
    close() {
      for (const c of wss.clients) c.close(1001, 'engine stopping');
      wss.close();
    },
  };
}
