/**
 * Registers a route from its entry in the route table (`shared/wire/routes/route-table.ts`) — part of the contract every feature is written against:
 * `route(app, 'GET /browsers/:id', handler)`. The entry gives the method(s), the path, the
 * schemas — so the handler's `req.params`/`query`/`body` and its reply are typed from them
 * (TypeBox type provider) — and the route's facts, which land in `routeOptions.config` for the
 * hooks that act across routes (node forwarding, permission before validation, api-call
 * telemetry, holding a session awake, the audit service). The options are what only this
 * handler's file knows: its own hooks, `public`/`enginePage`, body limits.
 */
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from './feature.js';
import { methodsAndUrl, ROUTES, type RouteFacts, type RouteName, type RouteTable } from '../shared/wire/routes/route-table.js';

declare module 'fastify' {
  /** The route's facts (shared/wire/routes/route-spec.ts), as the hooks across routes read them. */
  interface FastifyContextConfig {
    session?: RouteFacts['session'];
    forward?: RouteFacts['forward'];
    holdsAwake?: RouteFacts['holdsAwake'];
    apiCall?: RouteFacts['apiCall'];
    reach?: RouteFacts['reach'];
    sessionJwt?: RouteFacts['sessionJwt'];
    webdriver?: RouteFacts['webdriver'];
    audit?: RouteFacts['audit'];
  }
}

type SchemaOf<K extends RouteName> = RouteTable[K]['schema'];

/** The handler of route `K`, typed from its entry's schemas. */
export type RouteHandler<K extends RouteName> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  SchemaOf<K>,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>;

/** What a handler's file adds to its route (hooks, `config.public`, …); the schema and facts come from the table. */
export type RouteOptions<K extends RouteName> = Omit<
  RouteShorthandOptions<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    SchemaOf<K>,
    TypeBoxTypeProvider,
    FastifyBaseLogger
  >,
  'schema'
>;

export function route<K extends RouteName>(app: App, key: K, handler: RouteHandler<NoInfer<K>>): void;
export function route<K extends RouteName>(app: App, key: K, opts: RouteOptions<NoInfer<K>>, handler: RouteHandler<NoInfer<K>>): void;
export function route<K extends RouteName>(app: App, key: K, a: RouteOptions<K> | RouteHandler<K>, b?: RouteHandler<K>): void {
  const opts = (typeof a === 'function' ? {} : a) as RouteOptions<K>;
  const handler = (typeof a === 'function' ? a : b) as RouteHandler<K>;
  const spec = ROUTES[key];
  const { methods, url } = methodsAndUrl(key);
  app.route({
    ...(opts as object),
    method: methods.length === 1 ? methods[0] : methods,
    url,
    schema: spec.schema as FastifySchema,
    config: { ...(opts.config as object), ...spec.facts },
    handler: handler as never,
  });
}
