/**
 * How an MCP tool reaches the engine: as the HTTP API, in process, with the MCP caller's own
 * credentials. A request is handed to the engine's HTTP server as if it had arrived on a socket
 * (its `request` event, via light-my-request), so it runs every hook a client's request runs —
 * auth, project scoping, permission before validation, validation, node forwarding — and the
 * audit recorder writes its row (route, service, caller, status) exactly as for a client's call.
 * `app.inject` would skip that recorder: it listens on the server's `request` event.
 */
import type { IncomingHttpHeaders } from 'node:http';
import inject from 'light-my-request';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../feature.js';

/** The caller's headers that say who it is and which project it acts in; nothing else is passed on. */
const CALLER_HEADERS = ['authorization', 'cookie', 'x-browserdeck-console', 'x-kernel-project', 'x-kernel-project-id', 'user-agent', 'host'] as const;

/** An API answer that is not 2xx, as the Error object the API sent. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface ApiAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface CallOptions {
  /** Sent as JSON. */
  json?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
}

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export class EngineCall {
  private readonly headers: Record<string, string>;
  private readonly remoteAddress: string;

  constructor(
    private readonly app: App,
    from: Pick<FastifyRequest, 'headers' | 'ip'>,
  ) {
    const headers: Record<string, string> = {};
    for (const name of CALLER_HEADERS) {
      const v = from.headers[name];
      const value = Array.isArray(v) ? v[0] : v;
      if (value !== undefined) headers[name] = value;
    }
    this.headers = headers;
    this.remoteAddress = from.ip;
  }

  /** The raw answer, whatever its status. */
  async raw(method: HttpVerb, path: string, opts: CallOptions = {}): Promise<ApiAnswer> {
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) query[k] = String(v);
    const server = this.app.server;
    const res = await inject((req, res) => server.emit('request', req, res), {
      method,
      url: path,
      query,
      headers: opts.json === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
      ...(opts.json === undefined ? {} : { payload: JSON.stringify(opts.json) }),
      remoteAddress: this.remoteAddress,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return { status: res.statusCode, headers: res.headers as IncomingHttpHeaders, body: res.rawPayload };
  }

  /** The answer's bytes; a non-2xx answer throws `ApiCallError` with the API's code. */
  async bytes(method: HttpVerb, path: string, opts: CallOptions = {}): Promise<ApiAnswer> {
    const answer = await this.raw(method, path, opts);
    if (answer.status >= 400) throw errorOf(answer);
    return answer;
  }

  /** The answer's JSON (undefined for an empty body); a non-2xx answer throws `ApiCallError`. */
  async json<T = unknown>(method: HttpVerb, path: string, opts: CallOptions = {}): Promise<T> {
    const answer = await this.bytes(method, path, opts);
    return (answer.body.length ? JSON.parse(answer.body.toString('utf8')) : undefined) as T;
  }
}

function errorOf(answer: ApiAnswer): ApiCallError {
  try {
    const e = JSON.parse(answer.body.toString('utf8')) as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof e.code === 'string') return new ApiCallError(answer.status, e.code, typeof e.message === 'string' ? e.message : '', e.details);
  } catch {
    // not the Error object: described below
  }
  return new ApiCallError(answer.status, 'http_error', `the engine answered ${answer.status}`);
}

/** A path segment from a caller's value (an id or name), so it cannot reach another route. */
export const seg = (v: string): string => encodeURIComponent(v);
