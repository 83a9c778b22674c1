/**
 * Classic W3C WebDriver (HTTP) for a session: `{webdriver_url}` = `/browsers/{id}/webdriver`,
 * the server URL WebdriverIO (`remote`, `attach`) and Selenium (`usingServer`) take. Every
 * command goes to the session's own chromedriver (runtime/webdriver/session-chromedriver.ts,
 * jailed, started on first use), attached to the session's running browser:
 *  - `POST …/session`: the client's capabilities minus anything that would launch a browser or
 *    pass it flags, `goog:chromeOptions` forced to `{debuggerAddress}` (webdriver-capabilities.ts);
 *    `webSocketUrl: true` is answered with the session's `webdriver_ws_url` (the engine's BiDi
 *    route, a fresh session token in it), so BiDi drives the same browser;
 *  - `DELETE …/session/{sid}`: chromedriver detaches; the browser session keeps running;
 *  - chromedriver's own answers (W3C errors included) pass through with their status, its errors
 *    with the Error object's fields added (webdriver-errors.ts); what the engine refuses (credentials, an ended session, a chromedriver that cannot start) is the
 *    Error object.
 * Authenticated like every session route, plus HTTP Basic with the JWT or a key as password
 * (domain/sessions/session-access.ts). The WebSocket upgrades on the same paths stay BiDi
 * (runtime/bidi/bidi-feature.ts).
 */
import type { FastifyReply } from 'fastify';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { jailStatus } from '../runtime/sandbox/jail-status.js';
import { ChromedriverUnavailable, sessionChromedriver, type ChromedriverAnswer } from '../runtime/webdriver/session-chromedriver.js';
import { newSessionRequest, publicCapabilities } from '../runtime/webdriver/webdriver-capabilities.js';
import { withErrorObject } from '../runtime/webdriver/webdriver-errors.js';
import { route, type RouteHandler } from '../route.js';

/**
 * Scripts and their arguments are the largest bodies a client sends (Selenium's `/se/file`
 * upload, a base64 zip, is not supported: chromedriver's copy would land in its own jail).
 * Each request is buffered whole, so the cap bounds what one client can make the engine hold.
 */
const MAX_BODY = 8 * 1024 * 1024;

function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}

export const webdriverFeature: Feature<'sessions'> = {
  name: 'webdriver-classic',
  register(app, ctx, { sessions }) {
    const handler = async (req: Parameters<RouteHandler<'GET|POST|DELETE /browsers/:id/webdriver/*'>>[0], reply: FastifyReply) => {
      const handle = await sessions.require(req.auth, req.params.id);
      const { bwrap } = await jailStatus(ctx.config);
      const driver = await sessionChromedriver(handle, bwrap, [ctx.config.dataDir]).catch((err: Error) => {
        if (err instanceof ChromedriverUnavailable) throw new ApiError(503, 'webdriver_unavailable', err.message);
        if (handle.signal.aborted) throw ApiError.notFound('browser session', handle.id);
        throw new ApiError(502, 'webdriver_unavailable', `chromedriver could not start: ${err.message}`);
      });
      // The router decoded the path; chromedriver gets it encoded again (a decoded CR/LF or `?` is data, not syntax).
      const path = `/${(req.params['*'] ?? '').split('/').filter(Boolean).map(encodeURIComponent).join('/')}`;
      let body = req.method === 'POST' ? (Buffer.isBuffer(req.body) && req.body.length ? req.body : Buffer.from('{}')) : undefined;
      let bidi = false;
      const newSession = req.method === 'POST' && path === '/session';
      if (newSession) {
        const r = newSessionRequest(parseJson(body!), driver.debuggerAddress());
        body = Buffer.from(JSON.stringify(r.body));
        bidi = r.bidi;
      }
      // The command ends with the session, or when the client goes away.
      let answer: ChromedriverAnswer;
      try {
        answer = await driver.request(req.method, path, body, AbortSignal.any([handle.signal, clientGoneSignal(reply)]));
      } catch (err) {
        if (handle.signal.aborted) throw ApiError.notFound('browser session', handle.id);
        throw new ApiError(502, 'webdriver_unavailable', `chromedriver did not answer: ${(err as Error).message}`);
      }
      handle.touch();
      let out = answer.body;
      // Only capabilities name chromedriver's internal addresses (debuggerAddress, its BiDi socket).
      if (newSession || out.includes('goog:chromeOptions') || out.includes('webSocketUrl')) {
        const parsed = parseJson(out);
        if (parsed !== undefined) {
          const bidiUrl =
            newSession && bidi && answer.status === 200 ? (await sessions.dto(await sessions.getRow(req.auth, handle.id))).webdriver_ws_url : undefined;
          out = Buffer.from(JSON.stringify(publicCapabilities(parsed, bidiUrl)));
        }
      }
      if (answer.status >= 400) {
        const parsed = parseJson(out);
        if (parsed !== undefined) out = Buffer.from(JSON.stringify(withErrorObject(parsed)));
      }
      return reply
        .code(answer.status)
        .header('content-type', answer.contentType ?? 'application/json; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(out);
    };

    // Own scope: WebDriver bodies go to chromedriver as they came (a JSON body may be empty).
    void app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY }, (_req, raw, done) => done(null, raw));
      route(scope, 'GET|POST|DELETE /browsers/:id/webdriver', { exposeHeadRoute: false }, handler);
      route(scope, 'GET|POST|DELETE /browsers/:id/webdriver/*', { exposeHeadRoute: false }, handler);
    });
  },
};
