/**
 * HTTP through the session's browser (wire §3.6, §2.2): `POST /browsers/{id}/curl` answers
 * `{status, headers, body, duration_ms}`; `{base_url}/curl/raw?url=…` (the official client's
 * `browsers.fetch`) takes the target method, headers and raw body and streams the target's
 * status and body back, with the headers that describe the body (never one that would act on
 * the engine's origin, where the operator's console lives: see http/tenant-bytes.ts). Both use the browser's own network stack (runtime/browser-curl), so
 * the session's cookies, user agent, proxy and TLS apply, and cookies set by the target land
 * in the session. Redirects are returned, not followed.
 *
 * Failures inside the browser's network stack answer `502` (`504` when `timeout_ms` passed)
 * with `{code: "network_error", message, net_error, net_error_name}` — Chromium's error number
 * and name — and `x-should-retry: false`, so one call never becomes several requests.
 */
import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { TENANT_BYTES_HEADERS, targetHeaders } from '../http/tenant-bytes.js';
import { requireSession } from './session-fs.js';
import type { SessionRegistry } from '../runtime/session/session-handle.js';
import { BrowserCurlSlot, type CurlResponse } from '../runtime/browser-curl/browser-curl.js';
import { CurlInputError } from '../runtime/browser-curl/curl-page.js';
import { NetError } from '../runtime/browser-curl/net-errors.js';
import { CurlRawQuerySchema, MAX_CURL_BODY } from '../../shared/wire/session-curl.js';
import { SessionIdParamSchema as IdParam } from '../../shared/wire/session-id.js';
import { route } from '../route.js';

const MAX_BODY = MAX_CURL_BODY;
const DEFAULT_TIMEOUT_MS = 30_000;

// Headers that describe one hop, or that the engine's client added, never go to the target.
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'accept-encoding',
  'x-kernel-project-id',
  'x-kernel-project',
  'expect',
]);

/** A target URL the browser may fetch: absolute http(s), no embedded credentials. */
function targetUrl(raw: string, field: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw ApiError.invalidField(field, 'must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw ApiError.invalidField(field, `scheme "${u.protocol.replace(':', '')}" is not supported; use http or https`);
  if (u.username || u.password) throw ApiError.invalidField(field, 'must not contain credentials; send an Authorization header instead');
  return u.toString();
}

/** `content-type` → `Content-Type`, as HTTP libraries canonicalize names. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

function sendNetError(reply: FastifyReply, err: NetError): FastifyReply {
  const status = err.code === -7 ? 504 : 502;
  return reply
    .status(status)
    .header('x-should-retry', 'false')
    .type('application/json')
    .send({ code: 'network_error', message: err.message, net_error: err.code, net_error_name: err.netName, details: [] });
}

function failure(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof NetError) return sendNetError(reply, err);
  if (err instanceof CurlInputError) throw ApiError.badRequest(err.message);
  throw err;
}

async function collect(res: CurlResponse): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > MAX_BODY) {
      await res.cancel();
      throw new ApiError(502, 'response_too_large', `the response body exceeds ${MAX_BODY} bytes; use /curl/raw (client.browsers.fetch) to stream it`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

export const sessionCurlFeature: Feature<'sessions'> = {
  name: 'session-curl',
  register(app, _ctx, { sessions }) {
    route(app, 'POST /browsers/:id/curl', async (req, reply) => {
      const b = req.body;
      const url = targetUrl(b.url, 'url');
      const method = b.method ?? 'GET';
      if ((method === 'GET' || method === 'HEAD') && b.body) throw ApiError.invalidField('body', `a ${method} request cannot carry a body`);
      const handle = await requireSession(sessions, req);
      const started = performance.now();
      try {
        const res = await handle.scope
          .get(BrowserCurlSlot)
          .request(
            { url, method, headers: b.headers ?? {}, body: b.body === undefined ? undefined : Buffer.from(b.body) },
            b.timeout_ms ?? DEFAULT_TIMEOUT_MS,
            handle.signal,
          );
        const body = await collect(res);
        const headers: Record<string, string[]> = {};
        for (const [name, value] of res.headers) (headers[canonical(name)] ??= []).push(value);
        return {
          status: res.status,
          headers,
          body: body.toString(b.response_encoding === 'base64' ? 'base64' : 'utf8'),
          duration_ms: Math.round(performance.now() - started),
        };
      } catch (err) {
        return failure(reply, err);
      }
    });

    // The raw route takes any body as bytes, whatever its content type.
    void app.register(async (plugin) => {
      // A plugin scope starts without the app's type provider; the route below needs it.
      const raw = plugin.withTypeProvider<TypeBoxTypeProvider>();
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY }, (_req, body, done) => done(null, body));
      route(raw, 'GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS /browsers/:id/curl/raw', { exposeHeadRoute: false }, (req, reply) => rawFetch(sessions, req, reply));
    });
  },
};

type RawFetchRequest = Pick<FastifyRequest, 'auth' | 'method' | 'headers' | 'body'> & {
  params: Static<typeof IdParam>;
  query: Static<typeof CurlRawQuerySchema>;
};

async function rawFetch(sessions: SessionRegistry, req: RawFetchRequest, reply: FastifyReply): Promise<FastifyReply> {
  const q = req.query;
  const url = targetUrl(q.url, 'url');
  const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : undefined;
  if ((req.method === 'GET' || req.method === 'HEAD') && body) throw ApiError.badRequest(`a ${req.method} request cannot carry a body`);
  const handle = await requireSession(sessions, req);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    const lower = name.toLowerCase();
    if (NOT_FORWARDED.has(lower) || lower.startsWith('x-stainless-') || value === undefined) continue;
    // A bearer that authenticated this call is ours, not the target's.
    if (lower === 'authorization' && req.auth.strategy === 'api_key') continue;
    // The official client's own user agent and Node fetch's defaults: the browser's are the ones to send.
    if (lower === 'user-agent' && String(value).startsWith('Kernel/')) continue;
    if (lower === 'accept-language' && value === '*') continue;
    if ((lower === 'sec-fetch-mode' || lower === 'content-type') && !body) continue;
    headers[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  let res: CurlResponse;
  try {
    res = await handle.scope.get(BrowserCurlSlot).request({ url, method: req.method, headers, body }, q.timeout_ms ?? DEFAULT_TIMEOUT_MS, handle.signal);
  } catch (err) {
    return failure(reply, err);
  }
  reply.status(res.status);
  // The answer is served on the engine's origin: only headers that describe the body pass
  // (http/tenant-bytes.ts), so a target's Set-Cookie, Location, Link, Clear-Site-Data… never act
  // there; POST /curl reports all of them. The target's type is kept (the official client's
  // `Response` needs it) only because the hook answers `sandbox` + `nosniff` with it: as a page
  // it runs no script and has no origin. No type at all would be sniffed: octet-stream then.
  for (const [name, values] of targetHeaders(res.headers)) reply.header(name, values.length === 1 ? values[0] : values);
  if (!reply.hasHeader('content-type')) reply.type('application/octet-stream');
  reply.headers(TENANT_BYTES_HEADERS);
  const stream = Readable.from(res.body);
  // A client that goes away cancels the browser-side request.
  reply.raw.on('close', () => {
    if (!stream.readableEnded) stream.destroy();
  });
  return reply.send(stream);
}
