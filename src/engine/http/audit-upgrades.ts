/**
 * Records WebSocket upgrades (CDP, BiDi, live view, terminals) in the audit log: one row per
 * upgrade request, written when its socket closes, with the handshake status (101, or the
 * rejection the handler wrote) and the connection's lifetime as duration. Upgrade handlers
 * authenticate on their own; they may call `noteUpgradeIdentity` with the credential they
 * accepted, otherwise a bearer API key is looked up here and a `?jwt=` counts as session_jwt.
 * The route is the template the upgrade router matched and the service its `audit` fact (see upgrade-identity.ts).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { redactUrl } from './redact.js';
import { bearerOf } from './auth.js';
import type { AuditSink } from './audit-recorder.js';
import { CLIENT_CLOSED, type InFlight } from './audit-recorder.js';
import { clipPath, clipText, domainOf, serviceOf } from '../domain/audit/audit-record.js';
import type { Clock } from '../../shared/clock.js';
import { upgradeIdentityOf, upgradeRouteOf, upgradeServiceOf, upgradeWasForwarded, type UpgradeIdentity } from './upgrade-identity.js';

export { noteUpgradeIdentity, type UpgradeIdentity } from './upgrade-identity.js';

export function installUpgradeAudit(
  server: Server,
  opts: { sink: AuditSink; clock: Clock; defaultOrgId: string; identifyKey: (key: string) => Promise<UpgradeIdentity | null>; inFlight: InFlight },
): void {
  server.prependListener('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const startedAt = performance.now();
    const timestamp = opts.clock.now().toISOString();
    const clientIp = (socket as Socket).remoteAddress ?? '';
    const bearer = bearerOf({ headers: req.headers } as Parameters<typeof bearerOf>[0]);
    const byKey = bearer ? opts.identifyKey(bearer).catch(() => null) : Promise.resolve(null);
    const status = sniffStatus(socket);
    opts.inFlight.begin();
    socket.once('close', () => {
      void byKey.then((keyIdentity) => {
        opts.inFlight.end();
        if (upgradeWasForwarded(req)) return; // the owner node recorded it
        const code = status() || CLIENT_CLOSED;
        const url = req.url ?? '/';
        const accepted = code === 101;
        const jwt = accepted && !keyIdentity && /[?&]jwt=/.test(url);
        const who = upgradeIdentityOf(req) ?? (accepted ? keyIdentity : null);
        opts.sink.add({
          org_id: who?.orgId ?? opts.defaultOrgId,
          timestamp,
          auth_strategy: who?.strategy ?? (jwt ? 'session_jwt' : 'none'),
          user_id: who?.userId ?? '',
          email: who?.email ?? '',
          method: req.method ?? 'GET',
          path: clipPath(redactUrl(url)),
          route: upgradeRouteOf(req),
          domain: domainOf(req.headers.host),
          // The route's `audit` fact; an upgrade no route took: the first path segment.
          service: upgradeServiceOf(req) ?? serviceOf(url),
          client_ip: clientIp,
          user_agent: clipText(req.headers['user-agent']),
          status: code,
          duration_ms: Math.round(performance.now() - startedAt),
        });
      });
    });
  });
}

/** Watches the first bytes written to an upgrade socket for the HTTP status line, then unhooks. */
function sniffStatus(socket: Duplex): () => number {
  let status = 0;
  const write = socket.write;
  const end = socket.end;
  const look = (chunk: unknown): void => {
    if (status) return;
    const head = typeof chunk === 'string' ? chunk.slice(0, 16) : Buffer.isBuffer(chunk) ? chunk.subarray(0, 16).toString('latin1') : '';
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
    status = m ? Number(m[1]) : -1;
    socket.write = write;
    socket.end = end;
  };
  socket.write = function (this: Duplex, chunk: unknown, ...rest: unknown[]) {
    look(chunk);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Duplex['write'];
  socket.end = function (this: Duplex, chunk?: unknown, ...rest: unknown[]) {
    if (chunk !== undefined && typeof chunk !== 'function') look(chunk);
    return (end as (...a: unknown[]) => Duplex).call(this, chunk, ...rest);
  } as Duplex['end'];
  return () => (status > 0 ? status : 0);
}
