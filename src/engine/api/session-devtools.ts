/**
 * DevTools on any tab of a session (issue 17 item 1). `GET /browsers/{id}/devtools?target=…`
 * (API key, console cookie or session JWT, like every session route) checks the tab exists and
 * hands out a short-lived frontend token (`domain/sessions/devtools-token.ts`) in a redirect to
 * — or, with `format=json`, a link to — Chromium's own bundled frontend, served by the engine
 * under `/devtools-frontend/{token}/…` (`runtime/devtools-frontend/frontend-assets.ts`) and
 * connected through the engine's CDP proxy (`/devtools-frontend/{token}/ws`) to that one tab,
 * never to a browser port. `mode=read` puts `runtime/cdp/read-only-guard.ts` in the bridge.
 *
 * The frontend's files come from the session's browser, which the tenant's pages run in; so the
 * frontend, although served from the engine's origin, is confined by a response CSP to its own
 * token's path (scripts, styles, fetches, workers) and its WebSocket, and by COOP to its own
 * window group: it cannot call the console's API with the operator's cookie, nor script a
 * console window it opens.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { skipAuditRecord } from '../http/audit-recorder.js';
import { noteUpgradeIdentity } from '../http/upgrade-identity.js';
import { requestOrigin, type RequestOrigin } from '../http/request-origin.js';
import { DevtoolsTokens, type DevtoolsClaims } from '../domain/sessions/devtools-token.js';
import type { SessionHandle } from '../runtime/session/session-handle.js';
import { createCdpProxy } from '../runtime/cdp-proxy.js';
import { devtoolsJson } from '../runtime/chromium/devtools-address.js';
import { TARGET_ID } from '../runtime/cdp/devtools-targets.js';
import { guardReadOnlyCommand } from '../runtime/cdp/read-only-guard.js';
import { fetchFrontendAsset } from '../runtime/devtools-frontend/frontend-assets.js';
import { DomainError } from '../../shared/errors/domain-error.js';
import { route } from '../route.js';

/** How long a frontend link works: long enough to reload DevTools after a reconnect, short enough not to be a standing credential. */
export const DEVTOOLS_TOKEN_TTL_MS = 60 * 60_000;
export const FRONTEND_PREFIX = '/devtools-frontend';

/** The response CSP of every frontend file: nothing outside this token's own path, no frames, no forms. */
function frontendCsp(origin: RequestOrigin, token: string): string {
  const base = `${origin.http}${FRONTEND_PREFIX}/${token}/`;
  const ws = `${origin.secure ? 'wss' : 'ws'}://${origin.host}${FRONTEND_PREFIX}/${token}/ws`;
  return [
    "default-src 'none'",
    `script-src ${base}`,
    `style-src ${base} 'unsafe-inline'`,
    `img-src ${base} data: blob:`,
    `font-src ${base} data:`,
    `connect-src ${base} ${ws}`,
    `worker-src ${base}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export const sessionDevtoolsFeature: Feature<'sessions'> = {
  name: 'session-devtools',
  register(app, ctx, { sessions }) {
    const tokens = new DevtoolsTokens(sessions.jwt);
    const proxy = createCdpProxy(sessions);

    /** The running session a token names, if it still is the session the token was made for. */
    async function sessionOf(token: string): Promise<{ claims: DevtoolsClaims; rt: SessionHandle }> {
      const claims = await tokens.verify(token);
      if (!claims) throw DomainError.unauthorized('invalid or expired DevTools token');
      const rt = sessions.get(claims.sessionId);
      if (!rt || rt.orgId !== claims.orgId || rt.projectId !== claims.projectId) throw DomainError.notFound('browser session', claims.sessionId);
      return { claims, rt };
    }

    route(app, 'GET /browsers/:id/devtools', async (req, reply) => {
      const rt = await sessions.require(req.auth, req.params.id);
      const targetId = req.query.target;
      const targets = TARGET_ID.test(targetId) ? await devtoolsJson<Array<{ id: string }>>((await rt.ready()).wsUrl, '/json/list') : [];
      if (!targets.some((t) => t.id === targetId)) throw ApiError.notFound('target', targetId);
      const mode = req.query.mode ?? 'full';
      const expiresAt = new Date(ctx.clock.now().getTime() + DEVTOOLS_TOKEN_TTL_MS);
      const token = await tokens.sign({ sessionId: rt.id, orgId: rt.orgId, projectId: rt.projectId, targetId, mode }, expiresAt);
      const origin = requestOrigin(req);
      const ws = `${origin.host}${FRONTEND_PREFIX}/${token}/ws`;
      const url = `${origin.http}${FRONTEND_PREFIX}/${token}/inspector.html?${origin.secure ? 'wss' : 'ws'}=${encodeURIComponent(ws)}`;
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      if (req.query.format === 'json') return { url, target_id: targetId, mode, expires_at: expiresAt.toISOString() };
      return reply.redirect(url, 302);
    });

    route(app, 'GET /devtools-frontend/:token/*', { config: { public: true, enginePage: true } }, async (req, reply) => {
      // Dozens of files per opening, each with the token in its path: the opening call is the audit record.
      skipAuditRecord(reply.raw);
      const { rt } = await sessionOf(req.params.token);
      const asset = await fetchFrontendAsset((await rt.ready()).wsUrl, req.params['*']);
      if (asset.status !== 200) throw ApiError.notFound('DevTools file', req.params['*']);
      return reply
        .type(asset.contentType)
        .header('cache-control', 'private, max-age=600')
        .header('content-security-policy', frontendCsp(requestOrigin(req), req.params.token))
        .header('cross-origin-opener-policy', 'same-origin')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .send(asset.body);
    });

    ctx.upgrades.add(
      '/devtools-frontend/:token/ws',
      async (req, socket, head, params) => {
        const { claims, rt } = await sessionOf(params.token); // a failure: the router answers it
        noteUpgradeIdentity(req, {
          orgId: claims.orgId,
          strategy: 'session_jwt',
          userId: `session:${claims.sessionId}`,
          email: '',
          route: `${FRONTEND_PREFIX}/:token/ws`,
        });
        rt.touch();
        await proxy.connect(req, socket, head, rt, claims.targetId, claims.mode === 'read' ? guardReadOnlyCommand : undefined);
      },
      // Counted against the token's session's connections (an invalid token: the engine's only, and refused anyway).
      async (params) => (await tokens.verify(params.token))?.sessionId,
    );
  },
};
