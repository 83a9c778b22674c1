/**
 * DevTools HTTP discovery under a session's public CDP address `/browsers/{id}/cdp`: the routes
 * Chromium serves on its debugging port (`/json/version`, `/json`, `/json/list`, `/json/new`,
 * `/json/activate/{targetId}`, `/json/close/{targetId}`, `/json/protocol`), for clients that
 * start from an HTTP address (chrome-remote-interface, Playwright's http endpoints). Each is
 * authenticated like every session route, asked of the session's own browser over its DevTools
 * server (a Unix socket when jailed), and every address in the answer is rewritten to the
 * engine's per-target CDP route (`runtime/cdp-proxy.ts`), carrying a session token.
 *
 * `/json/protocol` is also served at the host root, without credentials: chrome-remote-interface
 * given a `target` WebSocket URL fetches it from `http://<host>:<port>/json/protocol` and cannot
 * add credentials. That copy comes from the `devtools-protocol` package the engine already
 * depends on, never from a running browser: an unauthenticated request must not reach any
 * tenant's session, nor tell whether one runs. (A session's own route answers from its browser.)
 */
import { createRequire } from 'node:module';
import type { FastifyRequest } from 'fastify';
import type { App } from '../feature.js';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import type { SessionManager } from '../domain/sessions/session-manager.js';
import type { RunningSession } from '../runtime/session/running-session.js';
import type { SessionJwt } from '../domain/sessions/session-jwt.js';
import { sessionUrls } from '../domain/sessions/session-record.js';
import { devtoolsJson, devtoolsRequest } from '../runtime/chromium/devtools-address.js';
import { TARGET_ID, newTargetQuery, rewriteTarget, type DevtoolsTarget } from '../runtime/cdp/devtools-targets.js';
import { route } from '../route.js';
import { showTab } from '../runtime/screencast.js';

/** A request to a route under `/browsers/:id/cdp`. */
type SessionRequest = Pick<FastifyRequest, 'auth' | 'url'> & { params: { id: string } };

/** Chromium's protocol description as `/json/protocol` gives it: the browser and JS domains together. */
let packagedProtocol: string | undefined;
function packagedProtocolDocument(): string {
  if (packagedProtocol) return packagedProtocol;
  const require = createRequire(import.meta.url);
  const browser = require('devtools-protocol/json/browser_protocol.json') as { version: unknown; domains: unknown[] };
  const js = require('devtools-protocol/json/js_protocol.json') as { domains: unknown[] };
  packagedProtocol = JSON.stringify({ version: browser.version, domains: [...js.domains, ...browser.domains] });
  return packagedProtocol;
}

export function registerDevtoolsDiscovery(app: App, ctx: EngineContext, sessions: SessionManager, jwt: SessionJwt): void {
  const session = (req: SessionRequest) => sessions.require(req.auth, req.params.id);
  const browserWs = async (rt: RunningSession) => (await rt.ready()).wsUrl;
  /** The session's public CDP URL with a fresh token (a day, like `/json/version` always gave). */
  const cdpUrl = async (rt: RunningSession) => {
    const token = await jwt.sign({ sessionId: rt.id, orgId: rt.orgId, projectId: rt.projectId }, new Date(ctx.clock.now().getTime() + 24 * 3600 * 1000));
    return sessionUrls(ctx.publicUrl(), rt.id, token).cdp_ws_url;
  };
  /** `ws(s)://…/browsers/{id}/cdp/devtools/page/{targetId}?jwt=…` for each target. */
  const targetUrlOf = async (rt: RunningSession) => {
    const [base, query] = (await cdpUrl(rt)).split('?');
    return (targetId: string) => `${base}/devtools/page/${encodeURIComponent(targetId)}?${query}`;
  };
  const targetIdOf = (req: { params: { targetId: string } }) => {
    const { targetId } = req.params;
    if (!TARGET_ID.test(targetId)) throw ApiError.notFound('target', targetId);
    return targetId;
  };

  route(app, 'GET /browsers/:id/cdp/json/version', async (req) => {
    const rt = await session(req);
    const info = await devtoolsJson<Record<string, string>>(await browserWs(rt), '/json/version');
    return { ...info, webSocketDebuggerUrl: await cdpUrl(rt) };
  });

  const list = async (req: SessionRequest) => {
    const rt = await session(req);
    const targets = await devtoolsJson<DevtoolsTarget[]>(await browserWs(rt), '/json/list');
    const urlOf = await targetUrlOf(rt);
    return targets.map((t) => rewriteTarget(t, urlOf));
  };
  route(app, 'GET /browsers/:id/cdp/json', list);
  route(app, 'GET /browsers/:id/cdp/json/list', list);

  // Chromium takes only PUT for /json/new since 111; GET is what older clients send.
  const create = async (req: SessionRequest) => {
    const rt = await session(req);
    const raw = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
    const token = req.auth.strategy === 'session_jwt' ? (new URL(req.url, 'http://x').searchParams.get('jwt') ?? undefined) : undefined;
    const pageUrl = newTargetQuery(raw, token);
    const res = await devtoolsRequest(await browserWs(rt), 'PUT', `/json/new${pageUrl ? `?${pageUrl}` : ''}`);
    if (res.status !== 200) throw ApiError.badRequest(`the browser could not open a page: ${res.body.trim() || `status ${res.status}`}`);
    return rewriteTarget(JSON.parse(res.body) as DevtoolsTarget, await targetUrlOf(rt));
  };
  route(app, 'GET|PUT /browsers/:id/cdp/json/new', create);

  // Chromium answers these with a line of text and 404 for a target it does not have.
  for (const action of ['activate', 'close'] as const) {
    route(app, `GET|PUT /browsers/:id/cdp/json/${action}/:targetId`, async (req, reply) => {
      const rt = await session(req);
      const targetId = targetIdOf(req);
      const res = await devtoolsRequest(await browserWs(rt), 'GET', `/json/${action}/${targetId}`);
      if (res.status !== 200) throw ApiError.notFound('target', targetId);
      // The live view (and a recording) follow the tab a client brought to the front.
      if (action === 'activate') showTab(rt, targetId);
      return reply.type('text/plain; charset=utf-8').send(res.body);
    });
  }

  route(app, 'GET /browsers/:id/cdp/json/protocol', async (req, reply) => {
    const res = await devtoolsRequest(await browserWs(await session(req)), 'GET', '/json/protocol', 30_000);
    if (res.status !== 200) throw new Error(`DevTools /json/protocol answered ${res.status}`);
    return reply.type('application/json; charset=utf-8').send(res.body);
  });
  route(app, 'GET /json/protocol', { config: { public: true } }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(packagedProtocolDocument()),
  );
}
