/**
 * The public CDP endpoint of a session: `ws(s)://{node}/browsers/{id}/cdp?jwt=…` proxied to
 * the session's Chromium on 127.0.0.1 (Chromium refuses DevTools connections whose Host is
 * not local, which is why clients never reach it directly). Many clients may connect at
 * once; each holds the session active. When the session ends every client gets a close
 * frame (1001 'session ended'); when the browser crashes, clients get 1012 and reconnect to
 * the same URL once the supervisor has restarted it.
 *
 * `Browser.close` from a client does not end the session (its lifetime belongs to the API):
 * the proxy answers it itself, closes the pages that client opened, and closes only that
 * client's connection.
 *
 * `/browsers/{id}/cdp/devtools/page/{targetId}` (the addresses DevTools discovery lists) is the
 * same bridge to one target's own DevTools endpoint, checked to exist first so that a bad id
 * is a 404 rather than a failed handshake.
 *
 * `connect` is the same bridge for an upgrade another route has authorized itself (the DevTools
 * frontend's token socket, `api/session-devtools.ts`), optionally with a guard on every client
 * command (read-only DevTools: `cdp/read-only-guard.ts`).
 */
import { guardUnjailedCommand } from './cdp/unjailed-guard.js';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { SessionHandle, SessionRegistry } from './session/session-handle.js';
import { sessionSignals } from '../events/session-signals.js';
import { devtoolsJson, targetWsUrl } from './chromium/devtools-address.js';
import { TARGET_ID } from './cdp/devtools-targets.js';
import { DomainError } from '../../shared/errors/domain-error.js';
import { SpareUpstreams } from './cdp/spare-upstream.js';

const MAX_PAYLOAD = 256 * 1024 * 1024;
/** How long after a client took the spare browser connection the next one opens. */
const SPARE_REFILL_MS = 1000;

/** Checks one client message: forward it (maybe rewritten) or answer it in the browser's place. */
export type CommandGuard = (text: string) => { forward: string } | { reply: string };
let connectionIds = 0;

/** Sessions reach the proxy only through the SessionHandle contract (runtime sits below domain/). */
export function createCdpProxy(sessions: Pick<SessionRegistry, 'requireUpgrade'>) {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_PAYLOAD });
  const clients = new Set<WebSocket>();
  const spares = new SpareUpstreams({ perMessageDeflate: false, maxPayload: MAX_PAYLOAD });

  async function handle(req: IncomingMessage, socket: Duplex, head: Buffer, params: Record<string, string>, url: URL): Promise<void> {
    // A failure is thrown: the upgrade router answers it (and logs what is unexpected).
    const rt = await sessions.requireUpgrade(req, url, params.id);
    await connect(req, socket, head, rt, params.targetId);
  }

  /**
   * Bridges an upgrade its caller has already authorized for `rt` (the browser, or one target);
   * `guard` sees each client message first and may rewrite it or answer it instead (read-only DevTools).
   */
  async function connect(req: IncomingMessage, socket: Duplex, head: Buffer, rt: SessionHandle, targetId?: string, guard?: CommandGuard): Promise<void> {
    const browserUrl = (await rt.ready()).wsUrl;
    const upstreamUrl = targetId === undefined ? browserUrl : await pageUrl(browserUrl, targetId);
    wss.handleUpgrade(req, socket, head, (client) => bridge(client, rt, upstreamUrl, guard));
  }

  async function pageUrl(browserUrl: string, targetId: string): Promise<string> {
    const known = TARGET_ID.test(targetId) && (await devtoolsJson<Array<{ id: string }>>(browserUrl, '/json/list')).some((t) => t.id === targetId);
    if (!known) throw DomainError.notFound('target', targetId);
    return targetWsUrl(browserUrl, targetId);
  }

  function bridge(client: WebSocket, rt: SessionHandle, upstreamUrl: string, guard?: CommandGuard): void {
    clients.add(client);
    const release = rt.holdActive();
    // The session's spare connection when it leads there (spare-upstream.ts). Only a taken spare is
    // replaced (a proxy never asked to prewarm — the DevTools frontend's — keeps none), a moment
    // later: opened now, it took the CPU this client's handshake needs.
    const spare = spares.take(rt, upstreamUrl);
    if (spare) setTimeout(() => spares.prepare(rt), SPARE_REFILL_MS).unref();
    const upstream = spare ?? new WebSocket(upstreamUrl, { perMessageDeflate: false, maxPayload: MAX_PAYLOAD });
    const queue: Array<{ data: RawData; binary: boolean }> = [];
    const createTargetIds = new Set<number>();
    const openedTargets = new Set<string>();
    let closing = false;
    // Telemetry (connection category): who connected, for how long, how many messages, why it ended.
    const connectionId = ++connectionIds;
    const connectedAt = Date.now();
    let messageCount = 0;
    sessionSignals.emit({ type: 'cdp_connect', sessionId: rt.id, connectionId });

    const closeBoth = (code: number, reason: string) => {
      if (closing) return;
      closing = true;
      const why = rt.signal.aborted ? 'context_cancelled' : code === 1012 ? 'upstream_changed' : code === 1000 ? 'client_close' : 'upstream_error';
      sessionSignals.emit({ type: 'cdp_disconnect', sessionId: rt.id, connectionId, durationMs: Date.now() - connectedAt, messageCount, reason: why });
      offEnd();
      offRestart();
      release();
      clients.delete(client);
      if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING) client.close(code, reason);
      if (upstream.readyState === WebSocket.OPEN || upstream.readyState === WebSocket.CONNECTING) upstream.close();
      setTimeout(() => {
        client.terminate();
        upstream.terminate();
      }, 2000).unref();
    };
    const onEnd = () => closeBoth(1001, 'session ended');
    rt.signal.addEventListener('abort', onEnd, { once: true });
    const offEnd = () => rt.signal.removeEventListener('abort', onEnd);
    const offRestart = rt.onBrowserRestart(() => closeBoth(1012, 'browser restarted; reconnect'));

    upstream.on('open', () => {
      for (const m of queue.splice(0)) upstream.send(m.data, { binary: m.binary });
    });
    upstream.on('message', (data, binary) => {
      messageCount++;
      rt.touch();
      if (createTargetIds.size) trackCreatedTarget(data.toString(), createTargetIds, openedTargets);
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary });
    });
    upstream.on('close', () => closeBoth(rt.signal.aborted ? 1001 : 1011, rt.signal.aborted ? 'session ended' : 'browser connection lost'));
    upstream.on('error', () => closeBoth(1011, 'browser connection failed'));

    client.on('message', (data, binary) => {
      // Closing: nothing more reaches the browser, nor telemetry (its cdp_disconnect is out).
      if (closing) return;
      messageCount++;
      let text = data.toString();
      if (guard) {
        const checked = guard(text);
        if ('reply' in checked) return void client.send(checked.reply);
        text = checked.forward;
        data = Buffer.from(text);
        binary = false;
      }
      if (text.includes('"Browser.close"') && answerBrowserClose(text)) return void forwarded(text);
      if (!rt.jailed) {
        const guarded = guardUnjailedCommand(text, rt.dirs.root);
        if (guarded && 'reply' in guarded) return void client.send(guarded.reply);
        if (guarded) data = Buffer.from((text = guarded.forward));
      }
      // Telemetry (control category): what the client told the browser, as it reaches it.
      forwarded(text);
      if (text.includes('"Target.createTarget"')) {
        const id = idOf(text, 'Target.createTarget');
        if (id !== undefined) createTargetIds.add(id);
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary });
      else queue.push({ data, binary });
    });
    client.on('close', () => closeBoth(1000, 'client closed'));
    client.on('error', () => closeBoth(1011, 'client error'));

    function forwarded(frame: string): void {
      sessionSignals.emit({ type: 'cdp_frame', sessionId: rt.id, connectionId, frame });
    }

    function answerBrowserClose(text: string): boolean {
      let msg: { id?: number; method?: string; sessionId?: string };
      try {
        msg = JSON.parse(text);
      } catch {
        return false;
      }
      if (msg.method !== 'Browser.close' || msg.sessionId) return false;
      let n = 1_000_000_000;
      for (const targetId of openedTargets)
        if (upstream.readyState === WebSocket.OPEN) upstream.send(JSON.stringify({ id: n++, method: 'Target.closeTarget', params: { targetId } }));
      client.send(JSON.stringify({ id: msg.id, result: {} }), () => closeBoth(1000, 'Browser.close: connection closed, session kept'));
      return true;
    }
  }

  return {
    handle,
    connect,
    /** Opens the session's spare browser connection now, so its first client does not wait for one. */
    prewarm: (rt: SessionHandle) => spares.prepare(rt),
    /** Number of connected CDP clients (all sessions). */
    get clientCount() {
      return clients.size;
    },
  };
}

function idOf(text: string, method: string): number | undefined {
  try {
    const msg = JSON.parse(text) as { id?: number; method?: string; sessionId?: string };
    return msg.method === method && !msg.sessionId ? msg.id : undefined;
  } catch {
    return undefined;
  }
}

function trackCreatedTarget(text: string, ids: Set<number>, opened: Set<string>): void {
  if (!text.includes('"targetId"')) return;
  try {
    const msg = JSON.parse(text) as { id?: number; result?: { targetId?: string } };
    if (msg.id !== undefined && ids.has(msg.id)) {
      ids.delete(msg.id);
      if (msg.result?.targetId) opened.add(msg.result.targetId);
    }
  } catch {
    /* not JSON: nothing to track */
  }
}
