/**
 * Playwright traces of a session (issue 17 item 4, viewer side): `GET /browsers/{id}/trace?path=…`
 * (API key, console cookie or session JWT) checks that the file is a regular file of the
 * session's filesystem and answers a redirect to (or, with `format=json`, a link to) the trace
 * viewer shipped with playwright-core, served by the engine under `/trace-viewer/{token}/…`
 * (`runtime/trace-viewer/trace-viewer-files.ts`), with the trace itself at
 * `/trace-viewer/{token}/trace.zip`: the token (`domain/sessions/trace-token.ts`) names that one
 * file, read through the session's rooted filesystem like `/fs/read_file`.
 *
 * The viewer renders page snapshots the tenant's pages produced, on the engine's origin; so
 * every file here carries a CSP that keeps fetches and scripts within the token's path, and
 * COOP: the operator's console API is out of its reach.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { sendAsFile } from '../http/tenant-bytes.js';
import { skipAuditRecord } from '../http/audit-recorder.js';
import { requestOrigin, type RequestOrigin } from '../http/request-origin.js';
import { TraceTokens } from '../domain/sessions/trace-token.js';
import { openFileForRead, requireRegularFile } from '../runtime/session-fs/session-files.js';
import { traceViewerFile } from '../runtime/trace-viewer/trace-viewer-files.js';
import { DomainError } from '../../shared/errors/domain-error.js';
import { route } from '../route.js';

export const TRACE_TOKEN_TTL_MS = 60 * 60_000;
export const VIEWER_PREFIX = '/trace-viewer';

function viewerCsp(origin: RequestOrigin, token: string): string {
  const base = `${origin.http}${VIEWER_PREFIX}/${token}/`;
  return [
    "default-src 'none'",
    `script-src ${base}`,
    `style-src ${base} 'unsafe-inline'`,
    `img-src ${base} data: blob:`,
    `font-src ${base} data:`,
    `media-src ${base} data: blob:`,
    `connect-src ${base}`,
    `worker-src ${base}`,
    `frame-src ${base}`,
    `manifest-src ${base}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export const sessionTraceFeature: Feature<'sessions'> = {
  name: 'session-trace',
  register(app, ctx, { sessions }) {
    const tokens = new TraceTokens(sessions.jwt);

    route(app, 'GET /browsers/:id/trace', async (req, reply) => {
      const rt = await sessions.require(req.auth, req.params.id);
      const file = await requireRegularFile(rt.dirs.root, req.query.path);
      const expiresAt = new Date(ctx.clock.now().getTime() + TRACE_TOKEN_TTL_MS);
      const token = await tokens.sign({ sessionId: rt.id, orgId: rt.orgId, projectId: rt.projectId, path: file }, expiresAt);
      const base = `${requestOrigin(req).http}${VIEWER_PREFIX}/${token}`;
      const url = `${base}/index.html?trace=${encodeURIComponent(`${base}/trace.zip`)}`;
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      if (req.query.format === 'json') return { url, path: file, expires_at: expiresAt.toISOString() };
      return reply.redirect(url, 302);
    });

    route(app, 'GET /trace-viewer/:token/*', { config: { public: true, enginePage: true } }, async (req, reply) => {
      // Dozens of files per opening, each with the token in its path: the opening call is the audit record.
      skipAuditRecord(reply.raw);
      const claims = await tokens.verify(req.params.token);
      if (!claims) throw DomainError.unauthorized('invalid or expired trace token');
      const rt = sessions.get(claims.sessionId);
      if (!rt || rt.orgId !== claims.orgId || rt.projectId !== claims.projectId) throw DomainError.notFound('browser session', claims.sessionId);
      const name = req.params['*'];
      reply
        .header('content-security-policy', viewerCsp(requestOrigin(req), req.params.token))
        .header('cross-origin-opener-policy', 'same-origin')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store');
      if (name === 'trace.zip') {
        // Any file of the session the caller named: the viewer fetches it; opened on its own it is a download.
        const { stream, size } = await openFileForRead(rt.dirs.root, claims.path);
        return sendAsFile(reply, 'application/zip', 'trace.zip').header('content-length', String(size)).send(stream);
      }
      // The viewer's liveness ping (every 10 s while open).
      if (name === 'ping') return reply.type('text/plain').send('ok');
      const file = traceViewerFile(name);
      if (!file) throw ApiError.notFound('trace viewer file', name);
      // The service worker's scope is the token's folder, where it is served from.
      return reply.type(file.contentType).send(file.body);
    });
  },
};
