/**
 * A signal that aborts when the client of a request goes away before its answer was sent (the
 * connection closed mid-request), so a long operation it started — a browser create — can stop
 * and clean up instead of finishing for nobody. A request answered normally never aborts it.
 */
import type { FastifyReply } from 'fastify';

export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  const res = reply.raw;
  // 'close' also follows a normal answer; only a response not yet written in full means the client left.
  res.once('close', () => {
    if (!res.writableFinished) ac.abort(new Error('the client closed the request'));
  });
  return ac.signal;
}
