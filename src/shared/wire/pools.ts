/** Wire schemas of browser pools (wire reference §3.5): the pool, its config, and the bodies. */
import { Type, type Static } from '@sinclair/typebox';
import {
  NetworkConfigSchema,
  NetworkRequestSchema,
  RegionSchema,
  SessionTimeoutSchema,
  TagsSchema,
  TelemetryConfigSchema,
  TelemetryRequestSchema,
  ViewportSchema,
} from './sessions.js';
import { OffsetQuery } from './pagination.js';

const Selector = Type.Object(
  { id: Type.Optional(Type.String({ maxLength: 255 })), name: Type.Optional(Type.String({ maxLength: 255 })) },
  { additionalProperties: false },
);

/** A pool's size and fill rate bounds; the domain (`pool-config.ts`) checks the same numbers. */
export const MAX_POOL_SIZE = 500;
/** Percent of the pool's size launched per minute at most; above 100 fills faster than one pool per minute. */
export const MAX_FILL_RATE = 10_000;
const PoolSize = Type.Integer({ minimum: 1, maximum: MAX_POOL_SIZE, description: 'browsers kept ready' });
const FillRate = Type.Integer({ minimum: 1, maximum: MAX_FILL_RATE, description: 'percent of size launched per minute at most' });

/** Options every pooled browser is created with (all but `size` optional). */
const configFields = {
  chrome_policy: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  extensions: Type.Optional(Type.Array(Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }))),
  fill_rate_per_minute: Type.Optional(FillRate),
  headless: Type.Optional(Type.Boolean()),
  kiosk_mode: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  /** PATCH: omitted = unchanged, `{}` = none (defaults), `{private_hosts: []}` = explicitly none. */
  network: Type.Optional(NetworkRequestSchema),
  profile: Type.Optional(Selector),
  proxy_id: Type.Optional(Type.String({ maxLength: 255 })),
  refresh_on_profile_update: Type.Optional(Type.Boolean()),
  start_url: Type.Optional(Type.String({ maxLength: 8192 })),
  stealth: Type.Optional(Type.Boolean()),
  telemetry: Type.Optional(TelemetryRequestSchema),
  timeout_seconds: Type.Optional(SessionTimeoutSchema),
  viewport: Type.Optional(ViewportSchema),
};

/** `region` (0.89) is fixed at create: a PATCH carrying it has it ignored, as any field it does not take. */
export const PoolCreateSchema = Type.Object({ size: PoolSize, region: Type.Optional(RegionSchema), ...configFields }, { additionalProperties: false });
export type PoolCreate = Static<typeof PoolCreateSchema>;

export const PoolUpdateSchema = Type.Object(
  { size: Type.Optional(PoolSize), discard_all_idle: Type.Optional(Type.Boolean()), ...configFields },
  { additionalProperties: false },
);
export type PoolUpdate = Static<typeof PoolUpdateSchema>;

export const PoolConfigSchema = Type.Object({
  size: Type.Integer(),
  chrome_policy: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  extensions: Type.Optional(Type.Array(Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }))),
  fill_rate_per_minute: Type.Optional(Type.Integer()),
  headless: Type.Optional(Type.Boolean()),
  kiosk_mode: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String()),
  network: Type.Optional(NetworkConfigSchema),
  profile: Type.Optional(Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })),
  proxy_id: Type.Optional(Type.String()),
  refresh_on_profile_update: Type.Optional(Type.Boolean()),
  region: Type.Optional(Type.String()),
  start_url: Type.Optional(Type.String()),
  stealth: Type.Optional(Type.Boolean()),
  telemetry: Type.Optional(TelemetryConfigSchema),
  timeout_seconds: Type.Optional(Type.Integer()),
  viewport: Type.Optional(ViewportSchema),
});
export type PoolConfig = Static<typeof PoolConfigSchema>;

export const BrowserPoolSchema = Type.Object({
  id: Type.String(),
  acquired_count: Type.Integer(),
  available_count: Type.Integer(),
  browser_pool_config: PoolConfigSchema,
  created_at: Type.String({ format: 'date-time' }),
  extension_ids: Type.Array(Type.String()),
  name: Type.Optional(Type.String()),
  profile_id: Type.Optional(Type.String()),
  /** Required by newer SDKs (0.89): the region of the node its browsers run on. */
  region: Type.String(),
});
export type BrowserPool = Static<typeof BrowserPoolSchema>;

export const PoolAcquireSchema = Type.Object(
  {
    acquire_timeout_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 600 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    start_url: Type.Optional(Type.String({ maxLength: 8192 })),
    tags: Type.Optional(TagsSchema),
    telemetry: Type.Optional(TelemetryRequestSchema),
  },
  { additionalProperties: false },
);
export type PoolAcquire = Static<typeof PoolAcquireSchema>;

export const PoolReleaseSchema = Type.Object(
  { session_id: Type.String({ minLength: 1, maxLength: 255 }), reuse: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export const PoolDeleteSchema = Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export const PoolIdParamSchema = Type.Object({ id_or_name: Type.String({ minLength: 1, maxLength: 255 }) });
export const PoolListQuerySchema = Type.Object({
  ...OffsetQuery,
  name: Type.Optional(Type.String()),
  query: Type.Optional(Type.String()),
  region: Type.Optional(RegionSchema),
});
export const BrowserPoolListSchema = Type.Array(BrowserPoolSchema);
/** 204 of acquire: no browser became free in time. */
export const PoolAcquireTimeoutSchema = Type.Null({ description: 'no browser became free within acquire_timeout_seconds' });
export const PoolDeleteBodySchema = Type.Optional(PoolDeleteSchema);
