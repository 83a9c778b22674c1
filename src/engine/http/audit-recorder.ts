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
import type { Clock } from '../../shared/clock.js';

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

export function installAuditRecorder(app: FastifyInstance, opts: { sink: AuditSink; clock: Clock; defaultOrgId: string; inFlight: InFlight }): void {
  const fastifyRequests = new WeakMap<IncomingMessage, FastifyRequest>();
  const remember = (request: FastifyRequest): void => {
    fastifyRequests.set(request.raw, request);
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

  app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const startedAt = performance.now();
    const timestamp = opts.clock.now().toISOString();
    // Read now: after the socket is destroyed its peer address is gone.
    const clientIp = req.socket.remoteAddress ?? '';
    opts.inFlight.begin();
    res.once('close', () => {
      opts.inFlight.end();
      const request = fastifyRequests.get(req);
      const auth = request?.auth;
      const url = req.url ?? '/';
      opts.sink.add({
        org_id: auth?.orgId ?? opts.defaultOrgId,
        timestamp,
        auth_strategy: auth?.strategy ?? 'none',
        user_id: auth?.userId ?? '',
        email: auth?.email ?? '',
        method: req.method ?? '',
        path: clipPath(redactUrl(url)),
        route: clipPath(request?.routeOptions.url ?? ''),
        domain: domainOf(req.headers.host),
        service: serviceOf(url),
        client_ip: clientIp,
        user_agent: clipText(req.headers['user-agent']),
        status: res.headersSent ? res.statusCode : CLIENT_CLOSED,
        duration_ms: Math.round(performance.now() - startedAt),
      });
    });
  });
}
