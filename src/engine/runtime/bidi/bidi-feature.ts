/**
 * `webdriver_ws_url`: `ws(s)://…/browsers/{id}/webdriver?jwt=…` speaks WebDriver BiDi through
 * an in-process chromium-bidi mapper attached to the session's browser (bidi-mapper.ts).
 * Chosen over proxying to a chromedriver: no extra process per session, no port to allocate,
 * and it follows browser restarts by simply reconnecting. `browser.close` and `session.end`
 * end only this client's BiDi connection — the session's lifetime belongs to the API
 * (DELETE /browsers/{id}), as with a client closing a CDP connection.
 */
import { startJailedBidiMapper } from './bidi-jail.js';
import { jailStatus } from '../sandbox/jail-status.js';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Feature } from '../../feature.js';
import type { SessionHandle } from '../session/session-handle.js';
import { startBidiMapper, type BidiMapper } from './bidi-mapper.js';
import { implicitSession } from './implicit-session.js';

/** How a client's mapper starts: jailed in its own process (bidi-jail.ts), or in-process without the jail. */
type StartMapper = (handle: SessionHandle, toClient: (message: unknown) => void) => Promise<BidiMapper>;

function serveBidiClient(ws: WebSocket, handle: SessionHandle, start: StartMapper): void {
  const release = handle.holdActive();
  const send = (m: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  let mapper: BidiMapper | undefined;
  const session = implicitSession((cmd) => mapper?.dispatch(cmd));
  const fromMapper = (m: unknown) => {
    if (!session.swallow(m)) send(m);
  };
  const waiting: Array<{ id?: unknown; method?: unknown }> = [];
  let closed = false;

  const finish = (code: number, reason: string) => {
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
  };
  const onEnded = () => finish(1000, 'session ended');
  handle.signal.addEventListener('abort', onEnded, { once: true });

  ws.on('message', (data) => {
    handle.touch();
    let cmd: { id?: unknown; method?: unknown };
    try {
      cmd = JSON.parse(data.toString());
    } catch {
      return send({ type: 'error', id: null, error: 'invalid argument', message: 'message is not valid JSON' });
    }
    if (cmd === null || typeof cmd !== 'object' || Array.isArray(cmd))
      return send({ type: 'error', id: null, error: 'invalid argument', message: 'message must be a JSON object' });
    if (cmd.method === 'browser.close' || cmd.method === 'session.end') {
      send({ type: 'success', id: cmd.id ?? null, result: {} });
      return finish(
        1000,
        cmd.method === 'browser.close' ? 'BiDi connection closed (the session keeps running; DELETE /browsers/{id} ends it)' : 'BiDi session ended',
      );
    }
    if (mapper) session.dispatch(cmd);
    else waiting.push(cmd);
  });

  ws.on('close', () => {
    closed = true;
    handle.signal.removeEventListener('abort', onEnded);
    mapper?.close();
    release();
  });

  void (async () => {
    try {
      const m = await start(handle, fromMapper);
      if (closed) return m.close();
      mapper = m;
      for (const cmd of waiting.splice(0)) session.dispatch(cmd);
      void m.cdpClosed.then(() =>
        finish(handle.signal.aborted ? 1000 : 1011, handle.signal.aborted ? 'session ended' : 'browser connection lost (restarted); reconnect'),
      );
    } catch (err) {
      finish(1011, `could not attach to the browser: ${(err as Error).message}`.slice(0, 120));
    }
  })();
}

export const bidiFeature: Feature<'sessions'> = {
  name: 'webdriver-bidi',
  register(_app, ctx, { sessions }) {
    const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
    ctx.onStop(() => {
      for (const c of wss.clients) c.close(1001, 'engine stopping');
      wss.close();
    });
    const handler = async (...[req, socket, head, params, url]: Parameters<Parameters<typeof ctx.upgrades.add>[1]>) => {
      const handle = await sessions.requireUpgrade(req, url, params.id); // a failure: the router answers it
      const { bwrap } = await jailStatus(ctx.config);
      const start: StartMapper =
        bwrap && handle.jailed
          ? (h, send) => startJailedBidiMapper(h, bwrap, [ctx.config.dataDir], send)
          : (h, send) => startBidiMapper(h.browserCdpUrl(), send);
      wss.handleUpgrade(req, socket, head, (ws) => serveBidiClient(ws, handle, start));
    };
    ctx.upgrades.add('/browsers/:id/webdriver', handler);
    // Some BiDi clients append /session to the address they were given.
    ctx.upgrades.add('/browsers/:id/webdriver/session', handler);
  },
};
