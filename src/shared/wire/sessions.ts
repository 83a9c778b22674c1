/**
 * Wire schemas of browser sessions (wire reference §3.0 / §3.6): the Session object and the
 * create/update bodies. The engine validates and documents with them; the UI uses the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';
import { OffsetQuery } from './pagination.js';
import { TelemetryBrowserConfigSchema, TelemetryBrowserRequestSchema } from './telemetry-categories.js';
import { TelemetryExportRequestSchema, TelemetryExportSchema } from './telemetry-destinations.js';

const Name = Type.String({ minLength: 1, maxLength: 255 });

export const TelemetryRequestSchema = Type.Union([
  Type.Object(
    {
      enabled: Type.Optional(Type.Boolean()),
      browser: Type.Optional(TelemetryBrowserRequestSchema),
      /** OTLP export to a telemetry destination (spec §2.1, §12). */
      export: Type.Optional(TelemetryExportRequestSchema),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export const TelemetryConfigSchema = Type.Union([
  Type.Object({ browser: Type.Optional(TelemetryBrowserConfigSchema), export: Type.Optional(TelemetryExportSchema) }),
  Type.Null(),
]);

/** A session's inactivity timeout, in seconds (wire §3.6: 10 to 72 hours); the domain checks the same numbers. */
export const SESSION_TIMEOUT_MIN_SECONDS = 10;
export const SESSION_TIMEOUT_MAX_SECONDS = 259_200;
export const SessionTimeoutSchema = Type.Integer({
  minimum: SESSION_TIMEOUT_MIN_SECONDS,
  maximum: SESSION_TIMEOUT_MAX_SECONDS,
  description: 'seconds of inactivity (no connection, no call) before the session ends',
});

/** A viewport's bounds, in pixels; the domain (`validateViewport`) checks the same numbers. */
export const VIEWPORT_MIN_WIDTH = 320;
export const VIEWPORT_MAX_WIDTH = 7680;
export const VIEWPORT_MIN_HEIGHT = 200;
export const VIEWPORT_MAX_HEIGHT = 4320;
/** The live-view screencast delivers at most ~60 frames a second here (ENVIRONMENT.md). */
export const MAX_REFRESH_RATE = 60;
const ViewportWidth = Type.Integer({ minimum: VIEWPORT_MIN_WIDTH, maximum: VIEWPORT_MAX_WIDTH, description: 'pixels' });
const ViewportHeight = Type.Integer({ minimum: VIEWPORT_MIN_HEIGHT, maximum: VIEWPORT_MAX_HEIGHT, description: 'pixels' });
// Unbounded in the schema on purpose: out of range answers 422 `unsupported_refresh_rate` (the domain's code), not 400.
const RefreshRate = Type.Integer({
  description: `live view frames per second, 1 to ${MAX_REFRESH_RATE}; outside that range: 422 unsupported_refresh_rate`,
});
export const ViewportSchema = Type.Object(
  { width: ViewportWidth, height: ViewportHeight, refresh_rate: Type.Optional(RefreshRate) },
  { additionalProperties: false },
);
export const ProfileSelectorSchema = Type.Object(
  { id: Type.Optional(Type.String()), name: Type.Optional(Type.String()), save_changes: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export const TagsSchema = Type.Record(Type.String(), Type.String());
/**
 * `network` (Kernel 0.89): `private_hosts` (entry rules in
 * engine/runtime/proxy-forwarder/private-hosts.ts) and, for sessions, `proxy_routes` (pattern
 * rules in engine/runtime/proxy-forwarder/proxy-routes.ts), both create-only, and for sessions
 * `allowed_hosts`, the egress allowlist (engine/runtime/proxy-forwarder/allowed-hosts.ts), which
 * PATCH replaces (pools refuse it with a 400 that names it).
 */
const ProxyRouteRequestSchema = Type.Object(
  {
    hosts: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100, description: 'exact hosts or *.suffix patterns; ports are ignored' }),
    proxy: Type.Object(
      {
        id: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        mode: Type.Optional(Type.String({ description: 'refused: a route names a proxy' })),
      },
      { description: 'exactly one of id and name' },
    ),
  },
  { additionalProperties: false },
);
const AllowedHostsSchema = Type.Array(Type.String({ maxLength: 300 }), {
  maxItems: 100,
  description: 'egress allowlist: exact hosts or *.suffix patterns, optional :port; IP literals match only URLs written with them',
});
export const NetworkRequestSchema = Type.Object(
  {
    private_hosts: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 })),
    proxy_routes: Type.Optional(Type.Array(ProxyRouteRequestSchema, { maxItems: 50, description: 'sessions only (400 on pools)' })),
    allowed_hosts: Type.Optional(AllowedHostsSchema),
  },
  { additionalProperties: false },
);
/** PATCH `network`: only `allowed_hosts` changes (`null` removes it for good); the other keys are named only to be refused (400). */
export const NetworkUpdateSchema = Type.Object(
  {
    allowed_hosts: Type.Optional(Type.Union([AllowedHostsSchema, Type.Null()])),
    private_hosts: Type.Optional(Type.Unknown({ description: 'create-only (400)' })),
    proxy_routes: Type.Optional(Type.Unknown({ description: 'create-only (400)' })),
  },
  { additionalProperties: false },
);
export const NetworkConfigSchema = Type.Object({
  private_hosts: Type.Optional(Type.Array(Type.String())),
  /** Each route's proxy by id, whichever way the create named it. */
  proxy_routes: Type.Optional(Type.Array(Type.Object({ hosts: Type.Array(Type.String()), proxy: Type.Object({ id: Type.String() }) }))),
  allowed_hosts: Type.Optional(Type.Array(Type.String())),
});

/**
 * Newer Kernel session fields (spec kernel-api-after-0.84 §2). `region` is a name the operator
 * gives each engine node (`--region`); Kernel's names are the usual ones, any lowercase name is
 * accepted here and placed on a node of that region (422 `region_unavailable` when none).
 */
export const RegionSchema = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: "an engine node's region (us-east, eu-west, …)" });
/** The memory a headful session asks for (0.91); reported on every session. */
export const MemoryRequestSchema = Type.Union([Type.Literal('8GiB'), Type.Literal('16GiB')]);
export const MemorySchema = Type.Union([Type.Literal('1GiB'), Type.Literal('2GiB'), Type.Literal('6GiB'), Type.Literal('8GiB'), Type.Literal('16GiB')]);
/** Typed proxy choice (0.88): exactly one of `mode`, `id`, `name`. */
export const ProxySelectorSchema = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('direct'), Type.Literal('default')])),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export const ProxyChoiceSchema = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('direct'), Type.Literal('default')])),
  id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
});
/** `location` overrides (Kernel docs): IANA time zone and BCP 47 locale; `null` clears one on PATCH. */
export const LocationRequestSchema = Type.Object(
  {
    timezone: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    locale: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  },
  { additionalProperties: false },
);
const Source = Type.Union([Type.Literal('override'), Type.Literal('metro')]);
export const LocationSchema = Type.Object({
  timezone: Type.String(),
  locale: Type.String(),
  timezone_source: Source,
  locale_source: Source,
  /** Accepted but not yet applied in the running browser. */
  pending: Type.Boolean(),
});

export const SessionCreateSchema = Type.Object(
  {
    chrome_policy: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    extensions: Type.Optional(Type.Array(Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }))),
    gpu: Type.Optional(Type.Boolean()),
    headless: Type.Optional(Type.Boolean()),
    invocation_id: Type.Optional(Type.String({ maxLength: 255 })),
    kiosk_mode: Type.Optional(Type.Boolean()),
    location: Type.Optional(LocationRequestSchema),
    memory: Type.Optional(MemoryRequestSchema),
    name: Type.Optional(Name),
    network: Type.Optional(NetworkRequestSchema),
    profile: Type.Optional(ProfileSelectorSchema),
    proxy: Type.Optional(ProxySelectorSchema),
    proxy_id: Type.Optional(Type.String({ maxLength: 255 })),
    region: Type.Optional(RegionSchema),
    start_url: Type.Optional(Type.String({ maxLength: 8192 })),
    stealth: Type.Optional(Type.Boolean()),
    tags: Type.Optional(TagsSchema),
    telemetry: Type.Optional(TelemetryRequestSchema),
    timeout_seconds: Type.Optional(SessionTimeoutSchema),
    viewport: Type.Optional(ViewportSchema),
  },
  { additionalProperties: false },
);

export const SessionUpdateSchema = Type.Object(
  {
    disable_default_proxy: Type.Optional(Type.Boolean()),
    location: Type.Optional(LocationRequestSchema),
    name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    /** `allowed_hosts` only; the create-only keys get a 400 saying so. */
    network: Type.Optional(NetworkUpdateSchema),
    profile: Type.Optional(ProfileSelectorSchema),
    proxy: Type.Optional(ProxySelectorSchema),
    proxy_id: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    /** Navigate after the update (0.106); `""` leaves the page alone. */
    start_url: Type.Optional(Type.String({ maxLength: 8192 })),
    tags: Type.Optional(Type.Union([TagsSchema, Type.Null()])),
    telemetry: Type.Optional(TelemetryRequestSchema),
    viewport: Type.Optional(
      Type.Object(
        { width: ViewportWidth, height: ViewportHeight, refresh_rate: Type.Optional(RefreshRate), force: Type.Optional(Type.Boolean()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object({
  session_id: Type.String(),
  cdp_ws_url: Type.String(),
  webdriver_ws_url: Type.String(),
  /** Browserdeck: the classic W3C WebDriver HTTP base (`…/browsers/{id}/webdriver`); authenticate with a bearer key or HTTP Basic (password: the session JWT or a key). */
  webdriver_url: Type.Optional(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  headless: Type.Boolean(),
  stealth: Type.Boolean(),
  timeout_seconds: Type.Integer(),
  base_url: Type.Optional(Type.String()),
  browser_live_view_url: Type.Optional(Type.String()),
  chrome_policy: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  deleted_at: Type.Optional(Type.String({ format: 'date-time' })),
  /**
   * An ended session's reason (engine fields: Kernel's Session has none): `deleted`, `timeout`,
   * `browser_crashed`, `engine_stopped`, `engine_restarted`, `invocation_ended`, `node_lost`, … and
   * who or what ended it (`api_key:<id>`, `invocation:<id>`, `node:<id>`, …) when one did.
   */
  ended_reason: Type.Optional(Type.String()),
  ended_by: Type.Optional(Type.String()),
  gpu: Type.Optional(Type.Boolean()),
  kiosk_mode: Type.Optional(Type.Boolean()),
  location: Type.Optional(LocationSchema),
  memory: MemorySchema,
  name: Type.Optional(Type.String()),
  network: Type.Optional(NetworkConfigSchema),
  pool: Type.Optional(Type.Object({ id: Type.String(), name: Type.Optional(Type.String()) })),
  profile: Type.Optional(
    // created_at is unknown (omitted) once the profile itself was deleted.
    Type.Object({
      id: Type.String(),
      created_at: Type.Optional(Type.String()),
      name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      updated_at: Type.Optional(Type.String()),
      last_used_at: Type.Optional(Type.String()),
    }),
  ),
  /** Whether this session writes back to its profile when it ends (0.87); only with a profile. */
  profile_save_changes: Type.Optional(Type.Boolean()),
  proxy: Type.Optional(ProxyChoiceSchema),
  proxy_id: Type.Optional(Type.String()),
  region: RegionSchema,
  start_url: Type.Optional(Type.String()),
  tags: Type.Optional(TagsSchema),
  telemetry: Type.Optional(TelemetryConfigSchema),
  usage: Type.Optional(Type.Object({ uptime_ms: Type.Integer() })),
  viewport: Type.Optional(Type.Object({ width: Type.Integer(), height: Type.Integer(), refresh_rate: Type.Optional(Type.Integer()) })),
  invocation_id: Type.Optional(Type.String()),
  /** The session JWT (also in the URLs); the official client's routing reads it. */
  jwt: Type.Optional(Type.String()),
});
export type Session = Static<typeof SessionSchema>;
/** The body of `POST /browsers`, as validated. */
export type SessionCreate = Static<typeof SessionCreateSchema>;
/** The body of `PATCH /browsers/{id}`, as validated. */
export type SessionUpdate = Static<typeof SessionUpdateSchema>;

/** `tags[k]=v` filters ride along as extra query keys (the schema does not refuse unknown keys). */
export const SessionListQuerySchema = Type.Object({
  ...OffsetQuery,
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('deleted'), Type.Literal('all')])),
  include_deleted: Type.Optional(Type.Boolean()),
  query: Type.Optional(Type.String({ maxLength: 255 })),
  region: Type.Optional(RegionSchema),
});
export const SessionListSchema = Type.Array(SessionSchema);
export const SessionGetQuerySchema = Type.Object({ include_deleted: Type.Optional(Type.Boolean()) });
/** `/browsers/{id}/cdp/json/{activate,close}/{targetId}`: one DevTools target of the session. */
export const DevtoolsTargetParamsSchema = Type.Object({
  id: SessionIdSchema,
  targetId: Type.String({ minLength: 1, maxLength: 255 }),
});
/** The live view page and its socket (`?jwt=…[&readOnly=true]`). */
export const LiveViewQuerySchema = Type.Object({ jwt: Type.Optional(Type.String()), readOnly: Type.Optional(Type.Boolean()) });
