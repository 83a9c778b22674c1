/**
 * One live-view viewer over a WebSocket: frames of the shared screencast out (JSON with the
 * base64 JPEG, dropped while the socket is backed up), page/cursor changes out, input in.
 * A read-only viewer's input is ignored here on the server, whatever its page does. The
 * viewer holds the session active while connected and gets a 1000 close when it ends.
 */
import type { WebSocket } from 'ws';
import type { SessionHandle } from '../session/session-handle.js';
import { subscribeScreencast, type ScreencastFrame } from '../screencast.js';
import { parseInput, toCdp } from './live-view-input.js';
import type { LiveViewService } from './live-view-state.js';
import { sessionSignals } from '../../events/session-signals.js';

/** Above this many unsent bytes a frame is skipped: a slow viewer sees fewer frames, not older ones. */
const MAX_BUFFERED = 2 * 1024 * 1024;
const PING_MS = 30_000;

/** Screencast settings for a viewer: the viewport's size. */
function castOptions(handle: SessionHandle) {
  // Not everyNthFrame: a page that paints once would then never be shown. The rate is applied per viewer.
  return { maxWidth: handle.viewport.width, maxHeight: handle.viewport.height, quality: 60 };
}

function minFrameIntervalMs(handle: SessionHandle): number {
  const rate = handle.viewport.refresh_rate;
  // 10% slack so jitter does not halve the rate.
  return rate ? (1000 / rate) * 0.9 : 0;
}

export interface ViewerStats {
  framesSent: number;
  inputsForwarded: number;
  inputsIgnored: number;
}

export function serveViewer(ws: WebSocket, handle: SessionHandle, opts: { readOnly: boolean; liveView: LiveViewService }): ViewerStats {
  const stats: ViewerStats = { framesSent: 0, inputsForwarded: 0, inputsIgnored: 0 };
  const release = handle.holdActive();
  const connectedAt = Date.now();
  sessionSignals.emit({ type: 'live_view_connect', sessionId: handle.id });
  const sub = subscribeScreencast(handle, castOptions(handle));
  // The session's viewport (and refresh_rate) can change by PATCH while a viewer watches.
  const offUpdate = handle.onUpdate(() => sub.update(castOptions(handle)));
  let lastSent = 0;
  let held: ScreencastFrame | undefined;
  let heldTimer: NodeJS.Timeout | undefined;
  const sendFrame = (f: ScreencastFrame) => {
    if (ws.readyState !== ws.OPEN || ws.bufferedAmount > MAX_BUFFERED) return;
    lastSent = Date.now();
    ws.send(JSON.stringify({ type: 'frame', data: f.data, metadata: f.metadata, timestamp: f.timestamp, targetId: f.targetId }));
    stats.framesSent++;
  };
  const send = (m: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  send({ type: 'hello', sessionId: handle.id, readOnly: opts.readOnly, viewport: handle.viewport, cursor: opts.liveView.cursor(handle.id) });
  send({ type: 'page', page: sub.page ?? null });
  const offPage = sub.onPage((page) => send({ type: 'page', page: page ?? null }));
  const offCursor = opts.liveView.watch(handle, (cursor) => send({ type: 'cursor', cursor }));

  const onEnded = () => {
    send({ type: 'ended' });
    ws.close(1000, 'session ended');
  };
  handle.signal.addEventListener('abort', onEnded, { once: true });
  const ping = setInterval(() => ws.ping(), PING_MS);
  ping.unref();

  void (async () => {
    for await (const f of sub) {
      if (ws.readyState !== ws.OPEN) break;
      // The compositor may deliver more often than the session's refresh_rate asks for: a frame
      // that comes too soon waits (replaced by newer ones), so the last state is always shown.
      const wait = lastSent + minFrameIntervalMs(handle) - Date.now();
      if (wait <= 0 && !heldTimer) {
        sendFrame(f);
        continue;
      }
      held = f;
      heldTimer ??= setTimeout(
        () => {
          heldTimer = undefined;
          if (held) sendFrame(held);
          held = undefined;
        },
        Math.max(0, wait),
      );
    }
  })().catch(() => {});

  // Input is applied strictly in arrival order.
  let chain: Promise<unknown> = Promise.resolve();
  ws.on('message', (data, isBinary) => {
    if (opts.readOnly || isBinary) {
      stats.inputsIgnored++;
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data.toString());
    } catch {
      stats.inputsIgnored++;
      return;
    }
    const msg = parseInput(raw);
    if (!msg) {
      stats.inputsIgnored++;
      return;
    }
    handle.touch();
    stats.inputsForwarded++;
    if (msg.type === 'mouse') opts.liveView.setCursor(handle, { x: msg.x, y: msg.y });
    for (const cmd of toCdp(msg)) chain = chain.then(() => sub.sendToPage(cmd.method, cmd.params)).catch(() => {});
  });

  ws.on('close', () => {
    sessionSignals.emit({ type: 'live_view_disconnect', sessionId: handle.id, durationMs: Date.now() - connectedAt });
    clearInterval(ping);
    handle.signal.removeEventListener('abort', onEnded);
    offPage();
    offCursor();
    offUpdate();
    sub.close();
    release();
  });
  return stats;
}
