/**
 * HTTP forwarding between engine nodes. A request for a session (`/browsers/:id…`) or for a
 * pool operation that needs the pool's runtime, which another alive node owns, is streamed to
 * that node as is — method, path and query, every header (Authorization, `X-Kernel-Project-Id`;
 * `?jwt=` is in the query) and the body stream — and its answer is streamed back (status,
 * headers, body: SSE and range responses included). The owner authenticates again and audits
 * the request; this node only uses the caller's identity to look the owner up in the caller's
 * scope, and does not audit what it forwarded. The DevTools frontend's and trace viewer's files
 * (a token in the path, no other credential) go to the node that runs the token's session.
 * `x-browserdeck-forwarded-by` marks a forwarded request: it is never forwarded again, so two
 * nodes that disagree cannot loop.
 *
 * A create (`POST /browsers`, `POST /browser_pools`) asking for a `region` this node does not
 * serve is placed on an alive node of that region: once its body is parsed and validated it is
 * sent there as JSON with the caller's headers, the same way (authenticated and audited there).
 * A forwarded create is answered where it lands (422 `region_unavailable` if that node no longer
 * serves the region), never sent on.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { stringField } from '../../shared/string-field.js';
import { pipeline } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Agent, request as undiciRequest } from 'undici';
import { ApiError } from './api-error.js';
import { errorBody } from './error-handler.js';
import { skipAuditRecord } from './audit-recorder.js';
import type { NodeRoute } from '../domain/nodes/node-routing.js';

export const FORWARDED_BY = 'x-browserdeck-forwarded-by';

/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1), plus ones undici refuses. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/** Tool pages whose credential is a token in their path (api/session-devtools.ts, api/session-trace.ts): no `request.auth`, routed by the token. */
const TOKEN_PAGES = { 'devtools-token': 'devtools', 'trace-token': 'trace' } as const;
export type TokenPage = (typeof TOKEN_PAGES)[keyof typeof TOKEN_PAGES];

export interface ForwardingOptions {
  nodeId: string;
  /** `ended`: route an ended session to its node too (replays are kept there). */
  session(auth: FastifyRequest['auth'], idOrName: string, ended: boolean): Promise<NodeRoute>;
  pool(auth: FastifyRequest['auth'], idOrName: string): Promise<NodeRoute>;
  /** Where a create asking for `region` runs (local: here, or nowhere, and the create says so). */
  placement(region: string | undefined): Promise<NodeRoute>;
  /** Where the session a tool page's token names runs; local when the token is not valid (the route answers 401). */
  tokenSession(page: TokenPage, token: string): Promise<NodeRoute>;
  /** While waiting for the owner's answer: is it still alive? (a frozen owner must not hang us) */
  ownerAlive(nodeId: string): Promise<boolean>;
  /** Forget cached node state after a failed forward. */
  forget(nodeId: string): void;
  log: FastifyInstance['log'];
}

export function nodeUnavailable(nodeId: string, why: string): ApiError {
  return new ApiError(503, 'node_unavailable', `the engine node that runs this resource (${nodeId}) cannot be reached: ${why}; try again later`);
}

/** What a request is about, when it may need another node (its route's `forward` fact); undefined for everything else. */
function targetOf(request: FastifyRequest): { kind: 'session' | 'pool' | TokenPage; key: string; ended?: boolean } | undefined {
  const forward = request.routeOptions.config?.forward;
  if (forward === 'devtools-token' || forward === 'trace-token') return { kind: TOKEN_PAGES[forward], key: stringField(request.params, 'token') ?? '' };
  if (!request.auth) return undefined;
  if (forward === 'session' || forward === 'session-or-ended')
    return { kind: 'session', key: stringField(request.params, 'id') ?? '', ended: forward === 'session-or-ended' };
  if (forward === 'pool') return { kind: 'pool', key: stringField(request.params, 'id_or_name') ?? '' };
  return undefined;
}

export function installNodeForwarding(app: FastifyInstance, opts: ForwardingOptions): { close(): Promise<void> } {
  // Connecting must fail fast (owner gone); answers may take long (acquire long-polls up to
  // 600 s, commands run for minutes) and bodies may idle (SSE), so those wait — while the
  // owner keeps heartbeating (see watchOwner).
  const agent = new Agent({ connect: { timeout: 5_000 }, headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 10_000 });

  // Runs after auth (installed before any feature): request.auth is the caller. Callback style:
  // requests that are not about a session or pool pass through without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const target = targetOf(request);
    if (!target || !target.key) return done();
    const route =
      target.kind === 'session'
        ? opts.session(request.auth, target.key, !!target.ended)
        : target.kind === 'pool'
          ? opts.pool(request.auth, target.key)
          : opts.tokenSession(target.kind, target.key);
    route.then(
      (r) => {
        if (r.kind === 'local') return done();
        const from = request.headers[FORWARDED_BY];
        if (from) return done(nodeUnavailable(r.nodeId, `this request was already forwarded by node ${String(from)} and is never forwarded twice`));
        if (r.kind === 'unavailable') return done(nodeUnavailable(r.nodeId, r.why));
        reply.hijack();
        forward(request.raw, reply.raw, r, opts, agent).catch((err) => opts.log.error({ err }, 'forwarding to another node failed'));
      },
      (err) => done(err),
    );
  });
  // Creates: the region is in the body, so this waits for it to be parsed and validated (a bad
  // body is answered here). App-wide hooks run before a route's own preHandler, so nothing of
  // the create (invocation or destination checks) has run on this node yet.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.routeOptions.config?.forward !== 'region' || !request.auth || request.headers[FORWARDED_BY]) return done();
    const region = stringField(request.body, 'region');
    opts.placement(region).then(
      (r) => {
        if (r.kind !== 'forward') return done();
        reply.hijack();
        const body = Buffer.from(JSON.stringify(request.body));
        forward(request.raw, reply.raw, r, opts, agent, body).catch((err) => opts.log.error({ err }, 'forwarding a create to another node failed'));
      },
      (err) => done(err),
    );
  });
  return { close: () => agent.destroy() };
}

/**
 * The caller's headers for the owner node: marked as forwarded by this node (loop guard) and
 * with the caller's address appended to x-forwarded-for. `skip`: headers that belong to this
 * hop only (an upgrade keeps `connection`/`upgrade`, a plain request drops them).
 */
export function forwardHeaders(
  headers: IncomingHttpHeaders,
  nodeId: string,
  clientIp: string | undefined,
  skip: ReadonlySet<string> = HOP_BY_HOP,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !skip.has(k)) out[k] = v;
  out[FORWARDED_BY] = nodeId;
  if (clientIp) out['x-forwarded-for'] = headers['x-forwarded-for'] ? `${String(headers['x-forwarded-for'])}, ${clientIp}` : clientIp;
  return out;
}

function hasBody(req: IncomingMessage): boolean {
  return !!req.headers['transfer-encoding'] || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  route: { nodeId: string; url: string },
  opts: ForwardingOptions,
  agent: Agent,
  /** The body to send instead of the request's stream (already read here: a placed create). */
  body?: Buffer,
): Promise<void> {
  const ac = new AbortController();
  // The caller went away: stop the owner's work on its behalf (and its stream).
  res.once('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  const stopWatching = watchOwner(route.nodeId, opts, () => ac.abort(new Error('the owner node stopped heartbeating')));
  let upstream;
  try {
    const headers = forwardHeaders(req.headers, opts.nodeId, req.socket.remoteAddress);
    if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
      delete headers['content-encoding'];
    }
    upstream = await undiciRequest(new URL(req.url ?? '/', route.url), {
      method: req.method as 'GET',
      headers,
      body: body ?? (hasBody(req) ? req : undefined),
      dispatcher: agent,
      signal: ac.signal,
    });
  } catch (err) {
    stopWatching();
    opts.forget(route.nodeId);
    if (res.destroyed) return;
    const why = (err as { code?: string }).code ?? (err as Error).message;
    const e = nodeUnavailable(route.nodeId, `forwarding to ${route.url} failed (${why})`);
    const body = JSON.stringify(errorBody(e));
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'retry-after': '1' });
    res.end(body);
    return;
  }
  stopWatching();
  // The owner answered and audits this request; recording it here too would count it twice.
  skipAuditRecord(res);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
  res.writeHead(upstream.statusCode, headers);
  // Headers go out now: an SSE stream's first event may be far away.
  res.flushHeaders();
  pipeline(upstream.body, res, () => {});
}

/** Aborts a forward that waits for the owner's answer once the owner stops heartbeating. */
function watchOwner(nodeId: string, opts: ForwardingOptions, abort: () => void): () => void {
  const timer = setInterval(() => {
    opts.forget(nodeId);
    void opts.ownerAlive(nodeId).then(
      (alive) => alive || abort(),
      () => {},
    );
  }, 5_000);
  timer.unref();
  return () => clearInterval(timer);
}
