/**
 * The console's typed client of the engine, inferred from the route table
 * (`shared/wire/routes/route-table.ts`) the way Hono's client is inferred from its routes:
 * `api.call('GET /browsers/:id', { params: { id }, query })` resolves with the `Static<>` of
 * the route's 200 response, `body` and `query` are typed by its schemas, and path params are
 * substituted (URL-encoded) from `params`. A key that is not in the table does not compile, so
 * a path the engine does not serve cannot be called. `send` adds status and headers
 * (pagination), `stream` reads an SSE route, `download`/`binary` carry bytes. Keys serving
 * several methods (`GET|PUT /x`) are called one method at a time (`GET /x`, `PUT /x`).
 *
 * The table is imported for its types only: nothing of it (nor of TypeBox) is bundled here.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { RouteTable } from '../../../shared/wire/routes/route-table';
import type { BinaryResponse, DownloadResult, HttpMethod, Query } from '../../../shared/ipc/contract';
import type { Health } from '../../../shared/wire/health';
import type { TelemetryEnvelope } from '../../../shared/wire/session-telemetry';
import { transport, type FormPart, type Response } from './index';

// ── the keys ────────────────────────────────────────────────────────────────────────────────

type Methods<M extends string> = M extends `${infer A}|${infer B}` ? A | Methods<B> : M;
/** `'GET|PUT /x'` → `'GET /x' | 'PUT /x'`. */
type OneMethod<K> = K extends `${infer M} ${infer P}` ? `${Methods<M>} ${P}` : never;

/** Every table key, one method each. */
type Routes = { [K in keyof RouteTable & string as OneMethod<K>]: RouteTable[K]['schema'] };
export type ApiRoute = keyof Routes & string;
/** The routes `stream` and `download` can read (both GET). */
export type GetRoute = Extract<ApiRoute, `GET ${string}`>;

type PathOf<R> = R extends `${string} ${infer P}` ? P : never;
/** The `:name` (and `*`) segments of a path. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : P extends `${string}/*`
      ? '*'
      : never;

// ── what a route takes ──────────────────────────────────────────────────────────────────────

/** The path params a route's key names, each a string or number. */
export type PathParams<R> = Record<ParamNames<PathOf<R>>, string | number>;
type ParamsPart<R> = [ParamNames<PathOf<R>>] extends [never] ? { params?: never } : { params: PathParams<R> };
type QueryPart<R extends ApiRoute> = Routes[R] extends { querystring: infer Q extends TSchema }
  ? object extends Static<Q>
    ? { query?: Static<Q> }
    : { query: Static<Q> }
  : { query?: never };
/**
 * A route without a body schema takes no body, or an empty object: some POSTs (`…/test`,
 * `…/check`) are sent `{}` so they carry a JSON content type, as the official client does.
 */
type BodyPart<R extends ApiRoute> = Routes[R] extends { body: infer B extends TSchema }
  ? object extends Static<B>
    ? { body?: Static<B> }
    : { body: Static<B> }
  : { body?: Record<string, never> };

export type CallOptions<R extends ApiRoute> = ParamsPart<R> &
  QueryPart<R> &
  BodyPart<R> & {
    /** Overrides the selected project (X-Kernel-Project-Id) for this call. */
    projectId?: string;
  };
/** The options argument, optional when nothing in it is required. */
type Args<O> = object extends O ? [opts?: O] : [opts: O];

// ── what a route answers ────────────────────────────────────────────────────────────────────

/**
 * Answers of routes the table declares no response schema for (the engine writes them
 * without serializing through one), typed here from the wire type that describes them.
 */
interface UnschemedAnswers {
  'GET /healthz': Health;
  'GET /browsers/:id/telemetry/events': TelemetryEnvelope[];
  'GET /browsers/:id/cdp/json/list': DevtoolsTarget[];
}

/** One entry of Chromium's DevTools discovery list (`/json/list`), as the engine passes it through. */
export interface DevtoolsTarget {
  id: string;
  type: string;
  title: string;
  url: string;
  webSocketDebuggerUrl?: string;
  devtoolsFrontendUrl?: string;
}

type SuccessSchema<Res> = Res[Extract<keyof Res, 200 | 201 | 202>];
export type Answer<R extends ApiRoute> = R extends keyof UnschemedAnswers
  ? UnschemedAnswers[R]
  : Routes[R] extends { response: infer Res }
    ? SuccessSchema<Res> extends infer S extends TSchema
      ? Static<S>
      : unknown
    : unknown;

// ── path building ───────────────────────────────────────────────────────────────────────────

/** Splits `'GET /browsers/:id'` into its method and path template. */
export function routeParts(route: string): { method: HttpMethod; template: string } {
  const space = route.indexOf(' ');
  return { method: route.slice(0, space) as HttpMethod, template: route.slice(space + 1) };
}

/**
 * The path of a template with its params substituted, each URL-encoded (a `*` param keeps its
 * `/` separators). A param missing from `params` throws rather than sending `/browsers/undefined`.
 */
export function buildPath(template: string, params: Record<string, string | number> = {}): string {
  return template
    .split('/')
    .map((seg) => {
      const name = seg === '*' ? '*' : seg.startsWith(':') ? seg.slice(1) : undefined;
      if (name === undefined) return seg;
      const v = params[name];
      if (v === undefined || v === null || v === '') throw new Error(`path parameter "${name}" of ${template} is missing`);
      return name === '*' ? String(v).split('/').map(encodeURIComponent).join('/') : encodeURIComponent(String(v));
    })
    .join('/');
}

/** The method and built path of a call (the client's one place that turns a key into a URL). */
export function resolveRoute(route: string, params?: Record<string, string | number>): { method: HttpMethod; path: string } {
  const { method, template } = routeParts(route);
  return { method, path: buildPath(template, params) };
}

// ── the client ──────────────────────────────────────────────────────────────────────────────

type Loose = { params?: Record<string, string | number>; query?: unknown; body?: unknown; projectId?: string };
const loose = (o: unknown): Loose => (o ?? {}) as Loose;

export interface DownloadOptions<R extends GetRoute> {
  /** Suggested file name in the save dialog. */
  filename: string;
  /** Follow `X-Next-Cursor` until `X-Has-More: false` and concatenate (audit export chunks). */
  cursor?: boolean;
  opts?: Omit<CallOptions<R>, 'body'>;
}

export interface BinaryOptions {
  /** A multipart form upload (the route then has no JSON body). */
  multipart?: FormPart[];
  /** Keep only the first `maxBytes` of the answer. */
  maxBytes?: number;
}

export const api = {
  /** Calls a route; resolves with its parsed answer, or throws an ApiError. */
  async call<R extends ApiRoute>(route: R, ...[opts]: Args<CallOptions<R>>): Promise<Answer<R>> {
    return (await api.send(route, ...([opts] as Args<CallOptions<R>>))).body;
  },

  /** Like `call`, with the status and (lower-cased) headers: pagination reads `x-has-more` and friends. */
  send<R extends ApiRoute>(route: R, ...[opts]: Args<CallOptions<R>>): Promise<Response<Answer<R>>> {
    const o = loose(opts);
    const { method, path } = resolveRoute(route, o.params);
    return transport().send<Answer<R>>(method, path, { query: o.query as Query | undefined, body: o.body, projectId: o.projectId });
  },

  /** The SSE frames of a GET route, parsed; breaking out of `for await` disposes the stream. */
  stream<R extends GetRoute>(route: R, ...[opts]: Args<Omit<CallOptions<R>, 'body'>>): AsyncIterable<unknown> {
    const o = loose(opts);
    return transport().stream(resolveRoute(route, o.params).path, { query: o.query as Query | undefined, projectId: o.projectId });
  },

  /** Saves a GET route's bytes to a file. */
  download<R extends GetRoute>(route: R, d: DownloadOptions<R>): Promise<DownloadResult> {
    const o = loose(d.opts);
    return transport().download({
      path: resolveRoute(route, o.params).path,
      filename: d.filename,
      ...(o.query ? { query: o.query as Query } : {}),
      ...(o.projectId ? { projectId: o.projectId } : {}),
      ...(d.cursor ? { cursor: true } : {}),
    });
  },

  /** A call whose body (multipart) or answer is binary; a JSON `body` is sent as JSON. */
  binary<R extends ApiRoute>(route: R, opts: CallOptions<R> & BinaryOptions): Promise<BinaryResponse> {
    const o = loose(opts);
    const { method, path } = resolveRoute(route, o.params);
    return transport().binary({
      method,
      path,
      ...(o.query ? { query: o.query as Query } : {}),
      ...(o.projectId ? { projectId: o.projectId } : {}),
      ...(o.body !== undefined ? { json: o.body } : {}),
      ...(opts.multipart ? { multipart: opts.multipart } : {}),
      ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}),
    });
  },
};

/** The query a route takes, for callers that build it up before the call. */
export type QueryOf<R extends ApiRoute> = NonNullable<CallOptions<R>['query']>;

/** The JSON body a route takes, for callers that build it up field by field. */
export type BodyOf<R extends ApiRoute> = NonNullable<CallOptions<R>['body']>;
