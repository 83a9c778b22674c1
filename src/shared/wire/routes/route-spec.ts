/**
 * One entry of the route table (`route-table.ts`): the key is `METHOD /path` (methods joined by
 * `|` when one handler serves several), the value the route's schemas (TypeBox, from
 * shared/wire) and its facts — what the engine's cross-cutting hooks do on it. The engine
 * registers each route from its entry (`src/engine/http/route.ts`) and carries the facts in
 * Fastify's `routeOptions.config`, where those hooks read them instead of matching URLs.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
export type RouteKey = `${string} /${string}`;

/**
 * Which engine node answers a request (PostgreSQL, `http/node-forwarding.ts`):
 * - `session`: the node running the route's session;
 * - `session-or-ended`: the same, also once the session ended (its replays are kept there);
 * - `pool`: the node holding the pool's runtime (its path param `id_or_name`);
 * - `region`: a create placed by its body's `region`;
 * - `devtools-token` / `trace-token`: a tool page, the node running the session its path token names.
 */
export type Forward = 'session' | 'session-or-ended' | 'pool' | 'region' | 'devtools-token' | 'trace-token';

/** The session telemetry event a call records (`api/session-api-calls.ts`): it drives the browser, or manages the session. */
export type ApiCall = 'control' | 'platform';

/** The tables a route's id can address; `domain/org/resource-reach.ts` knows how to look each one up. */
export type ReachTable =
  | 'browser_sessions'
  | 'profiles'
  | 'browser_pools'
  | 'credentials'
  | 'proxies'
  | 'auth_connections'
  | 'api_keys'
  | 'projects'
  | 'extensions'
  | 'deployments'
  | 'invocations'
  | 'credential_providers'
  | 'audit_export_destinations'
  | 'telemetry_destinations';

export interface RouteFacts {
  /** The path param naming the session the route touches (every `/browsers/{id}…` route). */
  session?: 'id';
  /** Forwarded to the node that owns its resource (see `Forward`). */
  forward?: Forward;
  /** The session's jail stays thawed while the call runs (`SessionManager.holdDuringCall`). */
  holdsAwake?: boolean;
  /** Recorded in the session's telemetry as an `api_call` (control) or `platform_api_call` (platform). */
  apiCall?: ApiCall;
  /** Permission before validation (`http/resource-lookup-first.ts`): the resource its path param addresses. */
  reach?: { table: ReachTable; param: string };
  /**
   * Which session token (`?jwt=`) authorizes the route: `own`, the JWT of the session its
   * `session` param names; `any`, any valid session JWT (the caller's own identity). Absent: none.
   */
  sessionJwt?: 'own' | 'any';
  /** A classic WebDriver route: HTTP Basic credentials count here (Selenium puts them in the server URL), nowhere else. */
  webdriver?: boolean;
  /** The audit log's `service` for this route. */
  audit: string;
}

/** The schema part of a route, as Fastify and `@fastify/swagger` read it. */
export interface RouteSchema {
  tags?: readonly string[];
  summary?: string;
  description?: string;
  hide?: boolean;
  deprecated?: boolean;
  consumes?: readonly string[];
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  response?: Record<number, unknown>;
}

export interface RouteSpec {
  schema: RouteSchema;
  facts: RouteFacts;
}

/** Checks a group of entries against the shapes above and keeps their exact types (the handlers are typed from them). */
export function defineRoutes<const T extends Record<RouteKey, RouteSpec>>(routes: T): T {
  return routes;
}

/**
 * The facts of a call on one session (`/browsers/{id}/…`): found within the caller's reach by its
 * id, forwarded to the session's node, holding its jail awake, authorized by that session's own
 * JWT too; `none` records no api_call (reading the session's telemetry or watching it must not
 * feed what it reads).
 */
export function sessionCall(apiCall: ApiCall | 'none', forward: 'session' | 'session-or-ended' = 'session'): RouteFacts {
  return {
    session: 'id',
    forward,
    holdsAwake: true,
    ...(apiCall === 'none' ? {} : { apiCall }),
    reach: { table: 'browser_sessions', param: 'id' },
    sessionJwt: 'own',
    audit: 'browsers',
  };
}

/** The facts of the session resource itself (`/browsers/{id}`: get, update, delete): a session call its own JWT does not authorize. */
export function sessionResourceCall(): RouteFacts {
  const { sessionJwt: _own, ...facts } = sessionCall('platform');
  return facts;
}

/** The methods and path of a key: `GET|PUT /a/:b` → `['GET', 'PUT']`, `/a/:b`. */
export function methodsAndUrl(key: RouteKey): { methods: HttpMethod[]; url: string } {
  const space = key.indexOf(' ');
  return { methods: key.slice(0, space).split('|') as HttpMethod[], url: key.slice(space + 1) };
}
