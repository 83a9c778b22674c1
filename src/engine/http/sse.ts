/**
 * The one SSE writer. Frames carry JSON in `data:` (and optionally `id:`); comments keep idle
 * connections alive. The stream is closed by the server (end of session, terminal state) or
 * by the client; `onClose` runs once either way so producers can unsubscribe.
 * Every open stream is known per HTTP server, so that stopping the engine ends each one (its
 * chunked response finished: a client's reader sees the end of the stream, not a cut socket)
 * before the server force-closes its connections (`endOpenSseStreams`, a preClose hook).
 */
import type { Server } from 'node:http';
import type { FastifyReply } from 'fastify';
import { TENANT_BYTES_HEADERS } from './tenant-bytes.js';

export interface SseStream {
  send(data: unknown, id?: number | string): void;
  comment(text?: string): void;
  close(): void;
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

const openStreams = new WeakMap<Server, Set<{ stream: SseStream; finished: Promise<void> }>>();

/**
 * Ends every stream still open on `server` and resolves once their last bytes were handed to
 * the socket (or after `maxMs`: a client that does not read cannot hold up a stop).
 */
export async function endOpenSseStreams(server: Server, maxMs = 2_000): Promise<void> {
  const open = [...(openStreams.get(server) ?? [])];
  if (!open.length) return;
  for (const o of open) o.stream.close();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(open.map((o) => o.finished)), new Promise<void>((r) => (timer = setTimeout(r, maxMs)))]);
  clearTimeout(timer);
}

export function openSse(reply: FastifyReply, opts: { keepaliveMs?: number; heartbeat?: () => unknown } = {}): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    // Hijacked: the tenant-bytes hook does not run; the events are tenant output (logs, stdout).
    ...TENANT_BYTES_HEADERS,
  });
  res.flushHeaders();
  let closed = false;
  const closers: Array<() => void> = [];
  let lastWrite = Date.now();
  const keepaliveMs = opts.keepaliveMs ?? 15_000;
  const timer = setInterval(
    () => {
      if (Date.now() - lastWrite < keepaliveMs - 50) return;
      if (opts.heartbeat) stream.send(opts.heartbeat());
      else stream.comment('keepalive');
    },
    Math.min(keepaliveMs, 1000),
  );
  timer.unref();

  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    for (const fn of closers.splice(0)) {
      try {
        fn();
      } catch {}
    }
  };
  res.on('close', finish);
  // Known to the server until the response is done (finished or cut), for `endOpenSseStreams`.
  const server = reply.server.server;
  let registry = openStreams.get(server);
  if (!registry) openStreams.set(server, (registry = new Set()));
  const entry = { stream: undefined as unknown as SseStream, finished: new Promise<void>((resolve) => res.once('close', resolve).once('finish', resolve)) };
  registry.add(entry);
  res.once('close', () => registry.delete(entry));

  const write = (chunk: string): void => {
    if (closed || res.writableEnded) return;
    lastWrite = Date.now();
    res.write(chunk);
  };

  const stream: SseStream = {
    send(data, id) {
      const idLine = id === undefined ? '' : `id: ${id}\n`;
      write(`${idLine}data: ${JSON.stringify(data)}\n\n`);
    },
    comment(text = '') {
      write(`: ${text}\n\n`);
    },
    close() {
      if (!res.writableEnded) res.end();
      finish();
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
    get closed() {
      return closed;
    },
  };
  entry.stream = stream;
  return stream;
}
