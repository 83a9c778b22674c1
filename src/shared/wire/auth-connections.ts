/**
 * Request schemas of `/auth/connections` (managed login) and its hosted page; the objects
 * they answer with are in identity.ts.
 */
import { Type } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';
import { CredentialRefSchema, ManagedAuthSchema, TimelineEventSchema } from './identity.js';
import { TelemetryRequestSchema } from './sessions.js';

export const ConnectionIdParamSchema = Type.Object({ id: Type.String({ minLength: 1 }) });
/** The hosted page is authorized by the flow's handoff code only. */
export const HostedPageQuerySchema = Type.Object({ code: Type.String({ maxLength: 128 }) });

const ProxySelector = Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) });
// The exact create-browser telemetry shape: it becomes the flow session's telemetry config.
const Telemetry = TelemetryRequestSchema;
/** The largest `health_check_interval` (seconds); the domain checks it, with the deployment's smallest. */
export const HEALTH_CHECK_MAX_SECONDS = 86400;
const ConfigFields = {
  allowed_domains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 50 })),
  auto_reauth: Type.Optional(Type.Boolean()),
  browser_telemetry: Type.Optional(Telemetry),
  credential: Type.Optional(CredentialRefSchema),
  // No `minimum`: the smallest interval is the deployment's (GET /org/limits), checked by the domain.
  health_check_interval: Type.Optional(
    Type.Integer({ maximum: HEALTH_CHECK_MAX_SECONDS, description: 'seconds; at least the min_health_check_interval_seconds of GET /org/limits' }),
  ),
  health_checks: Type.Optional(Type.Boolean()),
  login_url: Type.Optional(Type.String({ maxLength: 8192 })),
  proxy: Type.Optional(ProxySelector),
  record_session: Type.Optional(Type.Boolean()),
  save_credentials: Type.Optional(Type.Boolean()),
};
const StrMap = Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { maxProperties: 50 });

export const ConnectionCreateSchema = Type.Object({
  domain: Type.String({ minLength: 1, maxLength: 253 }),
  profile_name: Type.String({ minLength: 1, maxLength: 255 }),
  ...ConfigFields,
});
export const ConnectionPatchSchema = Type.Object(ConfigFields);
export const ConnectionListQuerySchema = Type.Object({
  ...OffsetQuery,
  domain: Type.Optional(Type.String()),
  profile_name: Type.Optional(Type.String()),
  query: Type.Optional(Type.String()),
});
export const ManagedAuthListSchema = Type.Array(ManagedAuthSchema);
export const LoginStartSchema = Type.Object({
  browser_telemetry: Type.Optional(Telemetry),
  proxy: Type.Optional(ProxySelector),
  record_session: Type.Optional(Type.Boolean()),
});
export const FlowSubmitSchema = Type.Object({
  field_values: Type.Optional(StrMap),
  fields: Type.Optional(StrMap),
  mfa_option_id: Type.Optional(Type.String()),
  selected_choice_id: Type.Optional(Type.String()),
  sign_in_option_id: Type.Optional(Type.String()),
  sso_button_selector: Type.Optional(Type.String()),
  sso_provider: Type.Optional(Type.String()),
});
export const FlowSubmitAcceptedSchema = Type.Object({ accepted: Type.Boolean() });
export const TimelineQuerySchema = Type.Object({
  ...OffsetQuery,
  type: Type.Optional(Type.Union([Type.Literal('login'), Type.Literal('reauth'), Type.Literal('health_check')])),
});
export const TimelineListSchema = Type.Array(TimelineEventSchema);
