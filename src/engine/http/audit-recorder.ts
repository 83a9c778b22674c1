/**
 * Records every HTTP request in the audit log. Timing starts on the raw server's `request`
 * event and the row is written when the raw response closes, so 401s from auth hooks, 404s,
 * hijacked replies (SSE streams, binary passthrough) and client aborts are all covered —
 * Fastify's own onResponse hook misses hijacked replies. Fastify hooks only remember which
 * Fastify request belongs to a raw one, for the route template and the caller's identity.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactUrl } from './redact.js';
import { clipPath, clipText, domainOf, serviceOf, type AuditRecord } from '../domain/audit/audit-record.js';
import { systemClock, type Clock } from '../../shared/clock.js';

export interface AuditSink {
  add(row: AuditRecord): void;
}

/** Status recorded when the client went away before any response was sent (nginx's convention). */
export const CLIENT_CLOSED = 499;

/**
 * Counts requests and upgrades whose row is not recorded yet. A response's 'close' can fire a
 * tick after the server reports itself closed, so the stop waits for this to reach zero.
 */
export class InFlight {
  private open = 0;
  private waiters: Array<() => void> = [];

  begin(): void {
    this.open++;
  }

  end(): void {
    if (--this.open === 0) for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when nothing is in flight, or after `maxMs` so a stuck socket cannot block a stop. */
  idle(maxMs: number): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** Per-request state, kept on the raw response (a shared 'close' listener reads it: no closure per request). */
class PendingRow {
  constructor(
    readonly req: IncomingMessage,
    readonly startedAt: number,
    readonly timestamp: string,
    readonly clientIp: string,
  ) {}
}

const PENDING = Symbol('audit.pending');
const SKIP = Symbol('audit.skip');
const FASTIFY_REQUEST = Symbol('audit.fastifyRequest');
type TaggedRequest = IncomingMessage & { [FASTIFY_REQUEST]?: FastifyRequest };
type TaggedResponse = ServerResponse & { [PENDING]?: PendingRow; [SKIP]?: true };

/**
 * Not recorded on this node: a request forwarded to the engine node that owns its session or
 * pool is audited there (it arrives there as a request of its own), not twice.
 */
export function skipAuditRecord(res: ServerResponse): void {
  (res as TaggedResponse)[SKIP] = true;
}

/**
 * The clock's time as ISO text. With the system clock, formatted at most once per millisecond
 * (many requests start within the same one); an injected clock is asked every time.
 */
export function isoNow(clock: Clock): () => string {
  if (clock !== systemClock) return () => clock.now().toISOString();
  let lastMs = -1;
  let lastIso = '';
  return () => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
}

export function installAuditRecorder(app: FastifyInstance, opts: { sink: AuditSink; clock: Clock; defaultOrgId: string; inFlight: InFlight }): void {
  // The Fastify request is remembered on its raw request (a symbol property is cheaper than a
  // WeakMap entry per request, and dies with it).
  const remember = (request: FastifyRequest): void => {
    (request.raw as TaggedRequest)[FASTIFY_REQUEST] = request;
  };
  // onRequest runs for requests that passed auth (hijacked ones included); onError for those
  // an earlier hook (auth) rejected, so that their route is known too. Requests that succeed
  // pass through just one cheap hook.
  app.addHook('onRequest', (request, _reply, done) => {
    remember(request);
    done();
  });
  app.addHook('onError', (request, _reply, _error, done) => {
    remember(request);
    done();
  });

  const now = isoNow(opts.clock);
  function onClose(this: TaggedResponse): void {
    const pending = this[PENDING];
    if (!pending) return;
    this[PENDING] = undefined;
    opts.inFlight.end();
    if (this[SKIP]) return;
    const req = pending.req;
    const request = (req as TaggedRequest)[FASTIFY_REQUEST];
    const auth = request?.auth;
    const url = req.url ?? '/';
    opts.sink.add({
      org_id: auth?.orgId ?? opts.defaultOrgId,
      timestamp: pending.timestamp,
      auth_strategy: auth?.strategy ?? 'none',
      user_id: auth?.userId ?? '',
      email: auth?.email ?? '',
      method: req.method ?? '',
      path: clipPath(redactUrl(url)),
      route: clipPath(request?.routeOptions.url ?? ''),
      domain: domainOf(req.headers.host),
      // The route's `audit` fact; a request no route matched: the first path segment.
      service: request?.routeOptions.config?.audit ?? serviceOf(url),
      client_ip: pending.clientIp,
      user_agent: clipText(req.headers['user-agent']),
      status: this.headersSent ? this.statusCode : CLIENT_CLOSED,
      duration_ms: Math.round(performance.now() - pending.startedAt),
    });
  }

  app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    // The peer address is read now: after the socket is destroyed it is gone.
    (res as TaggedResponse)[PENDING] = new PendingRow(req, performance.now(), now(), req.socket.remoteAddress ?? '');
    opts.inFlight.begin();
    res.on('close', onClose);
  });
}
