/**
 * Tenant bytes never run on the engine's origin (issue 25 row 2). The engine's origin is the
 * operator console's: a page rendered there is same-origin with it and rides on its cookie. So
 * every answer of the engine carries `Content-Security-Policy: sandbox` (an opaque origin, no
 * script, no forms, no plugins, whatever the body is) and `X-Content-Type-Options: nosniff` —
 * set by one `onSend` hook on every route, so a new route that returns a file, a target's
 * answer or a log cannot forget it. CSP on a `fetch`ed JSON answer is ignored by the browser,
 * so the API's own clients see no difference.
 *
 * The only exceptions are the engine's own pages (`config: { enginePage: true }`: the console,
 * the live view, the DevTools frontend, the trace viewer and replay player, the hosted login
 * page), which run the engine's scripts and set their own tighter CSP; they serve no byte a
 * tenant chose as a document (test/engine/robustness/tenant-bytes.test.ts holds the list).
 *
 * `targetHeaders` is what `/curl/raw` passes on of a target's answer: an allowlist of headers
 * that only describe the body, never ones a browser acts on for the origin (Set-Cookie,
 * Clear-Site-Data, Refresh, Link, Location, Service-Worker-Allowed, Access-Control-*, HSTS,
 * CSP, Alt-Svc, WWW-Authenticate… and whatever browsers learn next).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** One of the engine's own pages: it sets its own CSP and serves no tenant bytes as a document. */
    enginePage?: true;
  }
}

/** The CSP of everything that is not one of the engine's own pages. */
export const TENANT_BYTES_CSP = 'sandbox';

/** The two headers every non-page answer carries. */
export const TENANT_BYTES_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': TENANT_BYTES_CSP,
  'x-content-type-options': 'nosniff',
};

/**
 * Headers of a target's answer that only describe its body or its caching. Everything else is
 * dropped, except `x-*` extension headers (below): browsers act on none that grants anything.
 */
const DESCRIBES_BODY = new Set([
  'content-type',
  'content-language',
  'content-disposition',
  'content-range',
  'accept-ranges',
  'content-md5',
  'content-digest',
  'repr-digest',
  'digest',
  'etag',
  'last-modified',
  'expires',
  'cache-control',
  'pragma',
  'age',
  'vary',
  'date',
  'retry-after',
  'allow',
  'server',
]);

/**
 * `x-*` headers the engine keeps for itself, or that a reverse proxy in front of the engine
 * obeys (nginx's X-Accel-Redirect, Apache's X-Sendfile serve a file of the proxy's host).
 */
const RESERVED_X = [
  'x-content-type-options',
  'x-should-retry',
  'x-kernel-',
  'x-browserdeck-',
  'x-stainless-',
  'x-accel-',
  'x-sendfile',
  'x-lighttpd-send-file',
  'x-litespeed-',
];

/** Whether a target's response header (any case) may be passed on to the client as is. */
export function isPassedTargetHeader(name: string): boolean {
  const n = name.toLowerCase();
  if (DESCRIBES_BODY.has(n)) return true;
  return n.startsWith('x-') && !RESERVED_X.some((r) => n.startsWith(r));
}

/** A target's answer headers, filtered by `isPassedTargetHeader`, grouped by lowercase name in order. */
export function targetHeaders(headers: Iterable<readonly [string, string]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const n = name.toLowerCase();
    if (!isPassedTargetHeader(n)) continue;
    out.set(n, [...(out.get(n) ?? []), value]);
  }
  return out;
}

/**
 * `attachment` with the file name in both forms of RFC 6266: an ASCII `filename` (quotes,
 * backslashes, controls and non-ASCII replaced) and the exact UTF-8 `filename*`.
 */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * Marks a reply as a file of tenant bytes: the type the engine chose, `attachment` (a navigation
 * downloads it instead of rendering it), and the sandbox headers even where the hook does not run.
 */
export function sendAsFile(reply: FastifyReply, type: string, filename: string): FastifyReply {
  return reply.type(type).header('content-disposition', attachment(filename)).headers(TENANT_BYTES_HEADERS);
}

/** The hook: on every answer of every route (and of no route), unless the route is an engine page. */
export function installTenantBytesGuard(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    // An engine page keeps its own CSP (or none: the console); its error answers are sandboxed like the rest.
    const page = request.routeOptions.config?.enginePage && (reply.statusCode < 400 || reply.hasHeader('content-security-policy'));
    if (!page) reply.header('content-security-policy', TENANT_BYTES_CSP);
    done(null, payload);
  });
}
