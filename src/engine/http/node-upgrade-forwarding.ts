/**
 * WebSocket forwarding between engine nodes: an upgrade (CDP, BiDi, live view, process attach)
 * for a session that another alive node runs is replayed to that node — same path, query and
 * headers (the client's Sec-WebSocket-Key included, so the owner's handshake answer is valid
 * for the client as is) — and once the owner switches protocols the two sockets are piped
 * byte for byte. Whatever the owner answers instead (401, 404) is relayed. The owner
 * authenticates and audits the upgrade; this node audits it only when the owner could not be
 * reached (then the client gets 503 `node_unavailable`). Piped sockets are not the HTTP
 * server's to close, so `close()` (engine stop) destroys every pipe and pending handshake.
 */
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { rejectUpgrade, type UpgradeInterceptor } from './upgrade-router.js';
import { noteUpgradeForwarded } from './upgrade-identity.js';
import { FORWARDED_BY, forwardHeaders, nodeUnavailable } from './node-forwarding.js';
import type { NodeRoute } from '../domain/nodes/node-routing.js';
import type { UpgradeFacts } from '../../shared/wire/routes/upgrade-table.js';

/** The owner must answer the handshake within this (it answers at once unless overloaded). */
const HANDSHAKE_TIMEOUT_MS = 30_000;

export interface UpgradeForwardingOptions {
  nodeId: string;
  /** Where the upgrade must go (its route's facts say what it addresses); LOCAL when this node runs it or nothing matches. */
  route(req: IncomingMessage, url: URL, params: Record<string, string>, facts: UpgradeFacts): NodeRoute | Promise<NodeRoute>;
  forget(nodeId: string): void;
}

export function upgradeForwarding(opts: UpgradeForwardingOptions): { intercept: UpgradeInterceptor; close(): void } {
  // Client sockets this node pipes (or is about to): each one's close tears its pipe down.
  const live = new Set<Duplex>();
  let closed = false;
  const intercept: UpgradeInterceptor = (req, socket, head, params, url, facts) => {
    // Never twice: the local handler answers (it does not run this session: 404).
    if (req.headers[FORWARDED_BY]) return false;
    return Promise.resolve(opts.route(req, url, params, facts)).then((r) => {
      if (r.kind === 'local') return false;
      if (r.kind === 'unavailable') {
        refuse(socket, r.nodeId, r.why);
        return true;
      }
      if (closed) {
        refuse(socket, r.nodeId, 'this node is stopping');
        return true;
      }
      live.add(socket);
      socket.once('close', () => live.delete(socket));
      pipeUpgrade(req, socket, head, r, opts);
      return true;
    });
  };
  return {
    intercept,
    close() {
      closed = true;
      for (const socket of live) socket.destroy();
      live.clear();
    },
  };
}

function refuse(socket: Duplex, nodeId: string, why: string): void {
  rejectUpgrade(socket, nodeUnavailable(nodeId, why));
}

function headLines(statusCode: number, statusMessage: string, rawHeaders: string[], skip: Set<string> = new Set()): string {
  let out = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) if (!skip.has(rawHeaders[i].toLowerCase())) out += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return out;
}

function pipeUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, route: { nodeId: string; url: string }, opts: UpgradeForwardingOptions): void {
  const target = new URL(req.url ?? '/', route.url);
  const headers = forwardHeaders(req.headers, opts.nodeId, req.socket.remoteAddress, new Set());
  const up = http.request({
    protocol: target.protocol,
    hostname: target.hostname,
    port: target.port,
    path: target.pathname + target.search,
    method: req.method ?? 'GET',
    headers,
    agent: false,
  });
  let answered = false;
  const onClientGone = (): void => {
    if (!answered) up.destroy();
  };
  socket.once('close', onClientGone);
  up.setTimeout(HANDSHAKE_TIMEOUT_MS, () => up.destroy(new Error('the owner did not answer the handshake')));

  up.on('upgrade', (res, upSocket, upHead) => {
    answered = true;
    noteUpgradeForwarded(req);
    upSocket.setTimeout(0);
    const close = (): void => {
      upSocket.destroy();
      socket.destroy();
    };
    if (socket.destroyed) return close();
    socket.write(headLines(res.statusCode ?? 101, res.statusMessage ?? 'Switching Protocols', res.rawHeaders) + '\r\n');
    if (upHead.length) socket.write(upHead);
    if (head.length) upSocket.write(head);
    upSocket.on('error', close);
    socket.on('error', close);
    upSocket.on('close', close);
    socket.on('close', close);
    upSocket.pipe(socket);
    socket.pipe(upSocket);
  });

  // The owner refused the upgrade (auth, not found…): relay its answer, then close.
  up.on('response', (res) => {
    answered = true;
    noteUpgradeForwarded(req);
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', () => socket.destroy());
    res.on('end', () => {
      if (socket.destroyed) return;
      const body = Buffer.concat(chunks);
      const lines = headLines(
        res.statusCode ?? 502,
        res.statusMessage ?? '',
        res.rawHeaders,
        new Set(['connection', 'transfer-encoding', 'content-length', 'keep-alive']),
      );
      socket.end(Buffer.concat([Buffer.from(`${lines}content-length: ${body.length}\r\nconnection: close\r\n\r\n`), body]));
    });
  });

  up.on('error', (err) => {
    if (answered) return;
    opts.forget(route.nodeId);
    refuse(socket, route.nodeId, `forwarding to ${route.url} failed (${(err as { code?: string }).code ?? err.message})`);
  });
  up.end();
}
