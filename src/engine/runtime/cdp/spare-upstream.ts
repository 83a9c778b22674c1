/**
 * One browser-level DevTools connection per session, opened before a client asks for one. A
 * client's connect through the CDP proxy otherwise waits, after the engine's own upgrade, for a
 * new connection to the browser (in the jail: a fork of the jail's inbound socat, then
 * Chromium's WebSocket handshake) — most of what the proxy added over a direct connect
 * (`npx tsx bench/create-path.ts`). The session's start opens one (api/browsers.ts); each
 * client takes the one there is and a new one opens for the next. When the browser restarts
 * (crash, extension reload) the spare led to the old one: it is replaced by one to the new
 * browser, so the first client after a crash does not pay the handshake either. A spare is
 * dropped when the session ends, and when the browser closes it. Chromium sends nothing
 * on a browser connection nobody speaks on, so a spare costs one idle socket (and in the jail a
 * socat child, ~0.2 MB), and it does not count as a client (the session may still be frozen).
 */
import { WebSocket, type ClientOptions } from 'ws';
import type { SessionHandle } from '../session/session-handle.js';

interface Spare {
  url: string;
  ws: WebSocket;
  /** Removes the spare's own listeners (the taker adds its own). */
  release(): void;
  /** Forgets the spare and closes it (session end, browser gone, browser restarted). */
  drop(): void;
}

export class SpareUpstreams {
  private readonly spares = new WeakMap<SessionHandle, Spare>();
  /** Sessions this proxy prewarms: each new browser of theirs gets a spare too (only these: see `watch`). */
  private readonly watched = new WeakSet<SessionHandle>();

  constructor(private readonly options: ClientOptions) {}

  /** Opens a spare to `rt`'s current browser unless it has one; nothing once the session has ended or while no browser runs. */
  prepare(rt: SessionHandle): void {
    if (this.spares.has(rt) || rt.signal.aborted) return;
    this.watch(rt);
    let url: string;
    try {
      url = rt.browserCdpUrl();
    } catch {
      return;
    }
    const ws = new WebSocket(url, this.options);
    const spare: Spare = {
      url,
      ws,
      release: () => {
        rt.signal.removeEventListener('abort', spare.drop);
        ws.off('close', spare.drop);
        ws.off('error', spare.drop);
      },
      drop: () => {
        if (this.spares.get(rt) === spare) this.spares.delete(rt);
        spare.release();
        discard(ws);
      },
    };
    rt.signal.addEventListener('abort', spare.drop, { once: true });
    ws.on('close', spare.drop);
    ws.on('error', spare.drop);
    this.spares.set(rt, spare);
  }

  /**
   * Replaces `rt`'s spare at each browser restart, for as long as the session runs. Only sessions
   * this proxy was asked to prepare: a proxy that never prewarms (the DevTools frontend's) keeps
   * no connection of its own open.
   */
  private watch(rt: SessionHandle): void {
    if (this.watched.has(rt)) return;
    this.watched.add(rt);
    const off = rt.onBrowserRestart(() => {
      this.spares.get(rt)?.drop();
      this.prepare(rt);
    });
    rt.signal.addEventListener('abort', off, { once: true });
  }

  /** `rt`'s spare when it leads to `url` and is open or opening, handed over without its listeners; else undefined. */
  take(rt: SessionHandle, url: string): WebSocket | undefined {
    const spare = this.spares.get(rt);
    // A page's own endpoint: the spare stays for the next browser-level client.
    if (!spare || spare.url !== url) return undefined;
    if (spare.ws.readyState !== WebSocket.OPEN && spare.ws.readyState !== WebSocket.CONNECTING) {
      spare.drop();
      return undefined;
    }
    this.spares.delete(rt);
    spare.release();
    return spare.ws;
  }
}

/** Closes a connection nobody listens on any more (terminating one still connecting emits an error). */
function discard(ws: WebSocket): void {
  ws.on('error', () => {});
  ws.terminate();
}
