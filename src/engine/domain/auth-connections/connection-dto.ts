/** The wire form of an auth connection: its configuration, status and the most recent flow. */
import type { ConnectionRow, CredentialRef } from './auth-connections.js';
import type { FlowView } from './flow-state.js';
import type { ManagedAuthRecord } from '../../../shared/wire/identity.js';

const FLOW_KEYS = [
  'discovered_fields',
  'fields',
  'mfa_options',
  'pending_sso_buttons',
  'sign_in_options',
  'choices',
  'website_error',
  'error_code',
  'error_message',
  'external_action_message',
  'hosted_url',
  'live_view_url',
] as const;

export function connectionDto(row: ConnectionRow, flow: FlowView | undefined, reauth: { can: boolean; reason: string }): ManagedAuthRecord {
  const dto: Record<string, unknown> = {
    id: row.id,
    domain: row.domain,
    profile_name: row.profile_name,
    record_session: row.record_session === 1,
    save_credentials: row.save_credentials === 1,
    status: row.status,
    allowed_domains: JSON.parse(row.allowed_domains) as string[],
    auto_reauth: row.auto_reauth === 1,
    health_checks: row.health_checks === 1,
    health_check_interval: row.health_check_interval,
    can_reauth: reauth.can,
    can_reauth_reason: reauth.reason,
    browser_telemetry: row.browser_telemetry ? JSON.parse(row.browser_telemetry) : null,
    sso_provider: row.sso_provider,
  };
  if (row.credential) dto.credential = JSON.parse(row.credential) as CredentialRef;
  if (row.login_url) dto.login_url = row.login_url;
  if (row.proxy_id) dto.proxy_id = row.proxy_id;
  if (row.post_login_url) dto.post_login_url = row.post_login_url;
  if (row.last_auth_check_at) {
    dto.last_auth_check_at = row.last_auth_check_at;
    dto.last_auth_at = row.last_auth_check_at; // deprecated alias, same meaning
  }
  const inProgress = flow?.flow_status === 'IN_PROGRESS';
  dto.flow_status = flow?.flow_status ?? null;
  dto.flow_step = flow?.flow_step ?? null;
  dto.flow_type = flow?.flow_type ?? null;
  // Flow-only fields describe a flow in progress; once it ended they would point at nothing.
  dto.flow_expires_at = inProgress ? flow.flow_expires_at : null;
  dto.browser_session_id = inProgress ? flow.browser_session_id : null;
  for (const k of FLOW_KEYS) dto[k] = flow ? (flow[k] ?? null) : null;
  if (flow && !inProgress) {
    dto.hosted_url = null;
    dto.live_view_url = null;
  }
  // Built key by key (optional keys are left out, not undefined); ManagedAuthSchema is its shape.
  return dto as ManagedAuthRecord;
}

/** A `managed_auth_state` SSE payload. */
export function stateEvent(flow: FlowView, timestamp: string): Record<string, unknown> {
  const e: Record<string, unknown> = {
    event: 'managed_auth_state',
    flow_status: flow.flow_status,
    flow_step: flow.flow_step,
    timestamp,
    flow_type: flow.flow_type,
  };
  for (const k of FLOW_KEYS) if (flow[k] !== null && flow[k] !== undefined) e[k] = flow[k];
  if (flow.post_login_url) e.post_login_url = flow.post_login_url;
  return e;
}
