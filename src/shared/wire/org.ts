/**
 * Wire schemas of organization resources (TypeBox: JSON Schema + static types). The engine
 * validates and documents with them; the renderer uses the static types only.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';

export const ProjectSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Project = Static<typeof ProjectSchema>;

export const ErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ code: Type.String(), message: Type.String() }))),
  inner_error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});
export type ApiErrorBody = Static<typeof ErrorSchema>;

/** API key record as listed (masked). `created_by` is the key that created it (our actors are keys). */
export const ApiKeySchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
  deleted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  masked_key: Type.String(),
  name: Type.String(),
  project_id: Type.Union([Type.String(), Type.Null()]),
  project_name: Type.Union([Type.String(), Type.Null()]),
});
export type ApiKey = Static<typeof ApiKeySchema>;

/** A key right after creation or rotation: the record plus the plaintext, returned once. */
export const CreatedApiKeySchema = Type.Composite([ApiKeySchema, Type.Object({ key: Type.String() })]);
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

const Cap = Type.Union([Type.Integer(), Type.Null()]);

/** Per-project overrides; null = no project-level cap. */
export const ProjectLimitsSchema = Type.Object({
  max_concurrent_sessions: Cap,
  max_concurrent_invocations: Cap,
  max_pooled_sessions: Cap,
});
export type ProjectLimits = Static<typeof ProjectLimitsSchema>;

export const OrgLimitsSchema = Type.Object({
  max_concurrent_sessions: Type.Integer(),
  default_project_max_concurrent_sessions: Cap,
  // Usage fields newer Kernel SDKs (0.89, ~0.101, 0.109) type as required.
  concurrent_sessions_used: Type.Union([Type.Integer(), Type.Null()], {
    description: 'browsers running now across the organization, pool reservations included',
  }),
  concurrent_sessions_available: Type.Union([Type.Integer(), Type.Null()], {
    description: 'max_concurrent_sessions minus concurrent_sessions_used, floored at 0',
  }),
  auth_connections_used: Type.Integer({ description: 'managed-auth connections in the organization' }),
  max_auth_connections: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no cap' }),
  min_health_check_interval_seconds: Type.Integer({ description: 'the smallest health_check_interval an auth connection accepts' }),
  vaults_used: Type.Integer({ description: 'always 0: vaults are not offered by this engine' }),
  max_vaults: Type.Union([Type.Integer(), Type.Null()], { description: 'always 0: vaults are not offered by this engine' }),
});
export type OrgLimits = Static<typeof OrgLimitsSchema>;
/** The configured caps alone; the usage fields are added when the limits are read. */
export type OrgCaps = Pick<OrgLimits, 'max_concurrent_sessions' | 'default_project_max_concurrent_sessions'>;

export const ProjectIdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1020 }) });
export const ProjectCreateSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: 1020 }) }, { additionalProperties: false });
export const ProjectUpdateSchema = Type.Optional(
  Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 1020 })),
      status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('archived')])),
    },
    { additionalProperties: false },
  ),
);
export const ProjectListQuerySchema = Type.Object({ ...OffsetQuery, query: Type.Optional(Type.String()), name: Type.Optional(Type.String()) });
export const ProjectListSchema = Type.Array(ProjectSchema);

/** The longest an API key may live, in days (also the longest grace of a rotation). */
export const MAX_KEY_DAYS = 3650;
export const ApiKeyIdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
// 1–255 code points is checked in the domain; 1020 UTF-16 units bounds what can reach it.
const KeyName = Type.String({ minLength: 1, maxLength: 1020 });
const Lifetime = Type.Union([Type.Integer({ minimum: 1, maximum: MAX_KEY_DAYS }), Type.Null()], { description: 'days until expiry, 1–3650; null = never' });
const Grace = Type.Union([Type.Integer({ minimum: 0, maximum: MAX_KEY_DAYS }), Type.Null()], {
  description: 'days before the rotated key expires; 0 = now; omitted/null = 7',
});
export const ApiKeyCreateSchema = Type.Object(
  {
    name: KeyName,
    days_to_expire: Type.Optional(Lifetime),
    project_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1020 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export const ApiKeyListQuerySchema = Type.Object({
  ...OffsetQuery,
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('deleted'), Type.Literal('all')], {
      description: 'active (default; includes expired keys), deleted, all',
    }),
  ),
  include_deleted: Type.Optional(Type.Boolean({ description: 'deprecated: use status=all' })),
  name: Type.Optional(Type.String({ maxLength: 1020 })),
  query: Type.Optional(Type.String({ maxLength: 1020 })),
  sort_by: Type.Optional(Type.Union([Type.Literal('created_at'), Type.Literal('name'), Type.Literal('expires_at')], { description: 'default created_at' })),
  sort_direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'default desc' })),
});
export const ApiKeyListSchema = Type.Array(ApiKeySchema);
export const ApiKeyGetQuerySchema = Type.Object({ include_deleted: Type.Optional(Type.Boolean()) });
export const ApiKeyRenameSchema = Type.Object({ name: KeyName }, { additionalProperties: false });
export const ApiKeyRotateSchema = Type.Optional(
  Type.Object({ days_to_expire: Type.Optional(Lifetime), expire_in_days: Type.Optional(Grace) }, { additionalProperties: false }),
);

export const OrgLimitsPatchSchema = Type.Optional(
  Type.Object(
    {
      default_project_max_concurrent_sessions: Type.Optional(
        Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], {
          description: '0 or null removes the default; must not exceed max_concurrent_sessions',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);
// PostgreSQL `integer` is 32-bit; anything larger is a client error, not a database error.
const CapPatch = Type.Optional(
  Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()], { description: '0 or null removes the cap; omitted = unchanged' }),
);
export const ProjectLimitsPatchSchema = Type.Optional(
  Type.Object({ max_concurrent_sessions: CapPatch, max_concurrent_invocations: CapPatch, max_pooled_sessions: CapPatch }, { additionalProperties: false }),
);

/** `GET /auth/context` (Kernel SDK 0.87): who is calling and in which scope; no secrets. */
const NullableId = Type.Union([Type.String(), Type.Null()]);
export const AuthContextSchema = Type.Object({
  authentication: Type.Object({
    method: Type.Union([Type.Literal('api_key'), Type.Literal('jwt')]),
    source: Type.Union([Type.Literal('api_key'), Type.Literal('oauth'), Type.Literal('dashboard')]),
    credential_id: NullableId,
  }),
  authorization: Type.Object({
    credential_scope: Type.Object({ project_id: NullableId }),
    effective_scope: Type.Object({ project_id: NullableId }),
  }),
  organization: Type.Object({ id: Type.String() }),
  principal: Type.Object({ id: Type.String(), type: Type.Union([Type.Literal('api_key'), Type.Literal('user')]) }),
});
export type AuthContextInfo = Static<typeof AuthContextSchema>;

/** `GET /org/entitlements` (Kernel SDK 0.92): what this engine really offers. Null: no cap. */
const On = Type.Object({ enabled: Type.Boolean() });
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);
const Plan = Type.Union([Type.Literal('FREE'), Type.Literal('HOBBYIST'), Type.Literal('START_UP'), Type.Literal('ENTERPRISE')]);
export const EntitlementsSchema = Type.Object({
  features: Type.Object({
    browser_extensions: Type.Object({ enabled: Type.Boolean(), max_stored_per_org: NullableInt }),
    browser_pools: On,
    browser_replays: Type.Object({ enabled: Type.Boolean(), retention_days: Type.Integer() }),
    credential_providers: On,
    credentials: On,
    custom_proxies: On,
    file_io: On,
    gpu: On,
    managed_proxies: On,
    profiles: On,
    proxy_bypass_hosts: On,
    managed_auth: Type.Object({
      enabled: Type.Boolean(),
      health_check_interval_default_seconds: Type.Integer(),
      health_check_interval_max_seconds: Type.Integer(),
      health_check_interval_min_seconds: Type.Integer(),
      max_connections: NullableInt,
    }),
    vaults: On,
    search: On,
    /** Browserdeck: OTLP export of sessions' telemetry (spec §12); false when the engine turned it off (docs/use/otlp-export.md). */
    telemetry_export: On,
    /** WebMCP tools and invoke (spec §14): false once this engine's Chromium showed it lacks the domain. */
    webmcp: On,
  }),
  limits: Type.Object({
    default_max_concurrent_invocations_per_app: NullableInt,
    max_concurrent_browsers: Type.Integer(),
    max_concurrent_invocations: NullableInt,
    max_vaults: NullableInt,
  }),
  plan: Type.Object({
    id: Plan,
    effective_id: Plan,
    is_trialing: Type.Boolean(),
    status: Type.Union([Type.Literal('NEEDS_PAYMENT_METHOD'), Type.Literal('ACTIVE'), Type.Literal('CANCELED'), Type.Literal('UNPAID'), Type.Null()]),
    trial_ends_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
});
export type Entitlements = Static<typeof EntitlementsSchema>;
