/**
 * Wire schemas of proxies, credentials and auth connections (TypeBox). The engine validates
 * and documents with them; the renderer uses the static types only.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const FreeObject = Type.Record(Type.String(), Type.Unknown());

export const ProxyTypeSchema = Type.Union([
  Type.Literal('datacenter'),
  Type.Literal('isp'),
  Type.Literal('residential'),
  Type.Literal('mobile'),
  Type.Literal('custom'),
]);
export const ProxySchema = Type.Object({
  id: Type.String(),
  type: ProxyTypeSchema,
  name: Type.Optional(Type.String()),
  protocol: Type.Union([Type.Literal('http'), Type.Literal('https')]),
  bypass_hosts: Type.Array(Type.String()),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'the public config; custom proxies add has_password and has_ca_bundle' }),
  status: Type.Optional(Type.Union([Type.Literal('available'), Type.Literal('unavailable')])),
  /** Why the last check found it unavailable (an engine field: Kernel's Proxy has none); absent when available. */
  status_reason: Type.Optional(Type.String()),
  ip_address: Type.Optional(Type.String()),
  last_checked: Type.Optional(DateTime),
});
export type ProxyRecord = Static<typeof ProxySchema>;

export const CredentialSchema = Type.Object({
  id: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  domain: Type.String(),
  name: Type.String(),
  has_totp_secret: Type.Boolean(),
  has_values: Type.Boolean(),
  sso_provider: Nullable(Type.String()),
  value_keys: Type.Optional(Type.Array(Type.String())),
  totp_code: Type.Optional(Type.String()),
  totp_code_expires_at: Type.Optional(DateTime),
});
export type CredentialRecord = Static<typeof CredentialSchema>;

export const TotpCodeSchema = Type.Object({ code: Type.String(), expires_at: DateTime });

export const FLOW_STATUSES = ['IN_PROGRESS', 'SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED'] as const;
export const FLOW_STEPS = ['DISCOVERING', 'AWAITING_INPUT', 'AWAITING_EXTERNAL_ACTION', 'SUBMITTING', 'COMPLETED'] as const;
const lit = (vs: readonly string[]) => Type.Union(vs.map((v) => Type.Literal(v)));

export const DiscoveredFieldSchema = Type.Object({
  name: Type.String(),
  label: Type.String(),
  selector: Type.String(),
  type: lit(['text', 'email', 'password', 'tel', 'number', 'url', 'code', 'totp']),
  hint: Type.Optional(Type.String()),
  placeholder: Type.Optional(Type.String()),
  required: Type.Optional(Type.Boolean()),
  linked_mfa_type: Type.Optional(Type.Union([lit(['sms', 'call', 'email', 'totp', 'push', 'password', 'switch']), Type.Null()])),
});
export const FieldSchema = Type.Object({
  id: Type.String(),
  ref: Type.String(),
  type: lit(['identifier', 'password', 'code', 'totp_code', 'totp_secret', 'text']),
  label: Type.Optional(Type.String()),
  observed_selector: Type.Optional(Nullable(Type.String())),
  required: Type.Optional(Type.Boolean()),
});
export const ChoiceSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  type: lit(['mfa_method', 'sso_provider', 'sign_in_method', 'auth_method', 'identifier_method', 'account', 'other']),
  description: Type.Optional(Nullable(Type.String())),
  observed_selector: Type.Optional(Nullable(Type.String())),
});
export const MfaOptionSchema = Type.Object({
  type: lit(['sms', 'call', 'email', 'totp', 'push', 'password', 'switch']),
  label: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  target: Type.Optional(Nullable(Type.String())),
});
export const SsoButtonSchema = Type.Object({ selector: Type.String(), provider: Type.String(), label: Type.String() });
export const SignInOptionSchema = Type.Object({ id: Type.String(), label: Type.String(), description: Type.Optional(Nullable(Type.String())) });

const orNull = <T extends ReturnType<typeof Type.Array>>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const optStr = Type.Optional(Nullable(Type.String()));

/** The flow part shared by the connection record and `managed_auth_state` events. */
export const FlowFieldsSchema = {
  choices: orNull(Type.Array(ChoiceSchema)),
  discovered_fields: orNull(Type.Array(DiscoveredFieldSchema)),
  fields: orNull(Type.Array(FieldSchema)),
  mfa_options: orNull(Type.Array(MfaOptionSchema)),
  pending_sso_buttons: orNull(Type.Array(SsoButtonSchema)),
  sign_in_options: orNull(Type.Array(SignInOptionSchema)),
  error_code: optStr,
  error_message: optStr,
  external_action_message: optStr,
  website_error: optStr,
  hosted_url: optStr,
  live_view_url: optStr,
  post_login_url: Type.Optional(Type.String()),
};

export const CredentialRefSchema = Type.Object({
  name: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  auto: Type.Optional(Type.Boolean()),
});

export const ManagedAuthSchema = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  profile_name: Type.String(),
  record_session: Type.Boolean(),
  save_credentials: Type.Boolean(),
  status: lit(['AUTHENTICATED', 'NEEDS_AUTH']),
  allowed_domains: Type.Array(Type.String()),
  auto_reauth: Type.Boolean(),
  health_checks: Type.Boolean(),
  health_check_interval: Type.Union([Type.Integer(), Type.Null()]),
  can_reauth: Type.Boolean(),
  can_reauth_reason: Type.String(),
  browser_session_id: Type.Optional(Nullable(Type.String())),
  browser_telemetry: Type.Optional(Type.Union([FreeObject, Type.Null()])),
  credential: Type.Optional(CredentialRefSchema),
  flow_expires_at: Type.Optional(Nullable(DateTime)),
  flow_status: Type.Optional(Type.Union([lit(FLOW_STATUSES), Type.Null()])),
  flow_step: Type.Optional(Type.Union([lit(FLOW_STEPS), Type.Null()])),
  flow_type: Type.Optional(Type.Union([lit(['LOGIN', 'REAUTH']), Type.Null()])),
  last_auth_check_at: Type.Optional(DateTime),
  last_auth_at: Type.Optional(DateTime),
  login_url: Type.Optional(Type.String()),
  proxy_id: Type.Optional(Type.String()),
  sso_provider: optStr,
  ...FlowFieldsSchema,
});
export type ManagedAuthRecord = Static<typeof ManagedAuthSchema>;

export const LoginResponseSchema = Type.Object({
  id: Type.String(),
  flow_expires_at: DateTime,
  flow_type: lit(['LOGIN', 'REAUTH']),
  hosted_url: Type.String(),
  handoff_code: Type.Optional(Type.String()),
  live_view_url: Type.Optional(Type.String()),
});

export const TimelineEventSchema = Type.Object({
  id: Type.String(),
  status: lit(['IN_PROGRESS', 'SUCCESS', 'EXPIRED', 'CANCELED', 'FAILED', 'AUTHENTICATED', 'NEEDS_AUTH']),
  timestamp: DateTime,
  type: lit(['login', 'reauth', 'health_check']),
  browser_session_id: Type.Optional(Type.String()),
  error_code: Type.Optional(Type.String()),
  error_message: Type.Optional(Type.String()),
  previous_status: Type.Optional(lit(['AUTHENTICATED', 'NEEDS_AUTH'])),
  replay_id: Type.Optional(Type.String()),
  step: Type.Optional(
    lit(['INITIALIZED', 'DISCOVERING', 'AWAITING_INPUT', 'AWAITING_EXTERNAL_ACTION', 'AWAITING_HUMAN_INTERVENTION', 'SUBMITTING', 'COMPLETED', 'EXPIRED']),
  ),
  telemetry_captured: Type.Optional(Type.Boolean()),
  updated_at: Type.Optional(DateTime),
  website_error: Type.Optional(Type.String()),
});
export type TimelineEventRecord = Static<typeof TimelineEventSchema>;

export const ProxyIdParamSchema = Type.Object({ id: Type.String({ minLength: 1 }) });
export const ProxyCreateSchema = Type.Object({
  type: ProxyTypeSchema,
  name: Type.Optional(Type.String({ maxLength: 1020 })),
  protocol: Type.Optional(Type.Union([Type.Literal('http'), Type.Literal('https')])),
  bypass_hosts: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  config: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'per type; custom: host, port, username, password, ca_bundle (PEM certificates of a TLS-intercepting proxy, trusted by its sessions; stored encrypted, never returned)',
    }),
  ),
});
export const ProxyRenameSchema = Type.Object({ name: Type.String({ maxLength: 1020 }) });
export const ProxyCheckSchema = Type.Object({ url: Type.Optional(Type.String({ maxLength: 8192 })) });
export const ProxyListSchema = Type.Array(ProxySchema);

export const CredentialIdParamSchema = Type.Object({ id_or_name: Type.String({ minLength: 1 }) });
const CredentialValues = Type.Record(Type.String({ minLength: 1, maxLength: 255 }), Type.String({ maxLength: 65536 }), { maxProperties: 100 });
export const CredentialCreateSchema = Type.Object({
  domain: Type.String({ minLength: 1, maxLength: 2048 }),
  name: Type.String({ minLength: 1, maxLength: 1020 }),
  values: CredentialValues,
  sso_provider: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  totp_secret: Type.Optional(Type.String({ maxLength: 1024 })),
});
export const CredentialPatchSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 1020 })),
  remove_value_keys: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  sso_provider: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  totp_secret: Type.Optional(Type.String({ maxLength: 1024 })),
  values: Type.Optional(CredentialValues),
});
export const CredentialListQuerySchema = Type.Object({ ...OffsetQuery, domain: Type.Optional(Type.String()), query: Type.Optional(Type.String()) });
export const CredentialListSchema = Type.Array(CredentialSchema);
