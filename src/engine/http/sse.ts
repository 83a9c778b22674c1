/**
 * The one SSE writer. Frames carry JSON in `data:` (and optionally `id:`); comments keep idle
 * connections alive. The stream is closed by the server (end of session, terminal state) or
 * by the client; `onClose` runs once either way so producers can unsubscribe.
 */
import type { FastifyReply } from 'fastify';

export interface SseStream {
  send(data: unknown, id?: number | string): void;
  comment(text?: string): void;
  close(): void;
  onClose(fn: () => void): void;
  readonly closed: boolean;
}

export function openSse(reply: FastifyReply, opts: { keepaliveMs?: number; heartbeat?: () => unknown } = {}): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  let closed = false;
  const closers: Array<() => void> = [];
  let lastWrite = Date.now();
  const keepaliveMs = opts.keepaliveMs ?? 15_000;
  const timer = setInterval(() => {
    if (Date.now() - lastWrite < keepaliveMs - 50) return;
    if (opts.heartbeat) stream.send(opts.heartbeat());
    else stream.comment('keepalive');
  }, Math.min(keepaliveMs, 1000));
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
  return stream;
}
