/**
 * The state of one login flow as the API shows it (on the connection record and in
 * `managed_auth_state` events), and the mapping from a page snapshot to the wire's field and
 * choice lists. Field ids are stable per field name, so `fields` (by name) and `field_values`
 * (by id) address the same inputs.
 */
import type { PageSnapshot, RawChoice, RawField } from './page-discovery.js';
import { isIdentifier } from './page-discovery.js';

export type FlowStatus = 'IN_PROGRESS' | 'SUCCESS' | 'FAILED' | 'EXPIRED' | 'CANCELED';
export type FlowStep = 'DISCOVERING' | 'AWAITING_INPUT' | 'AWAITING_EXTERNAL_ACTION' | 'SUBMITTING' | 'COMPLETED';
export type FlowType = 'LOGIN' | 'REAUTH';
export type FieldType = 'identifier' | 'password' | 'code' | 'totp_code' | 'totp_secret' | 'text';

export interface WireField {
  id: string;
  ref: string;
  type: FieldType;
  label?: string;
  observed_selector?: string | null;
  required?: boolean;
}

export interface FlowView {
  id: string;
  flow_type: FlowType;
  flow_status: FlowStatus;
  flow_step: FlowStep;
  flow_expires_at: string;
  browser_session_id: string | null;
  hosted_url: string;
  handoff_code: string;
  live_view_url: string | null;
  discovered_fields: Array<Record<string, unknown>> | null;
  fields: WireField[] | null;
  mfa_options: Array<Record<string, unknown>> | null;
  pending_sso_buttons: Array<{ selector: string; provider: string; label: string }> | null;
  sign_in_options: Array<{ id: string; label: string; description?: string | null }> | null;
  choices: Array<Record<string, unknown>> | null;
  website_error: string | null;
  error_code: string | null;
  error_message: string | null;
  external_action_message: string | null;
  post_login_url?: string;
}

export const TERMINAL: FlowStatus[] = ['SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED'];

export function fieldType(f: RawField): FieldType {
  if (f.type === 'password') return 'password';
  if (f.type === 'totp') return 'totp_code';
  if (f.type === 'code') return 'code';
  if (isIdentifier(f)) return 'identifier';
  return 'text';
}

/** The credential value name a field's value is stored under and filled from. */
export function fieldRef(f: RawField): string {
  const t = fieldType(f);
  if (t === 'identifier') return f.type === 'email' || /mail/i.test(`${f.name} ${f.label}`) ? 'email' : 'username';
  if (t === 'password') return 'password';
  if (t === 'totp_code') return 'totp_code';
  if (t === 'code') return 'code';
  return f.name;
}

export const fieldId = (f: RawField): string => `fld_${f.name}`;

/** A choice's wire id (`choices[].id`, `sign_in_options[].id`), which `selected_choice_id` and the option ids name. */
export const choiceId = (c: RawChoice): string => `${c.kind === 'mfa' ? 'mfa' : c.kind === 'sso' ? 'sso' : 'opt'}_${c.value}`;

function linkedMfa(f: RawField): string | null {
  if (f.type === 'totp') return 'totp';
  if (f.type !== 'code') return null;
  const h = `${f.hint ?? ''} ${f.label}`;
  if (/e-?mail/i.test(h)) return 'email';
  if (/phone|sms|text/i.test(h)) return 'sms';
  return null;
}

export interface StepView {
  discovered_fields: FlowView['discovered_fields'];
  fields: WireField[];
  mfa_options: FlowView['mfa_options'];
  pending_sso_buttons: FlowView['pending_sso_buttons'];
  sign_in_options: FlowView['sign_in_options'];
  choices: FlowView['choices'];
}

export function stepView(s: PageSnapshot): StepView {
  const discovered = s.fields.map((f) => {
    const d: Record<string, unknown> = {
      name: f.name,
      label: f.label,
      selector: f.selector,
      type: f.type,
      required: f.required,
      linked_mfa_type: linkedMfa(f),
    };
    if (f.placeholder) d.placeholder = f.placeholder;
    if (f.hint) d.hint = f.hint;
    return d;
  });
  const fields = s.fields.map((f) => ({
    id: fieldId(f),
    ref: fieldRef(f),
    type: fieldType(f),
    label: f.label,
    observed_selector: f.selector,
    required: f.required,
  }));
  const mfa = s.choices.filter((c) => c.kind === 'mfa');
  const sso = s.choices.filter((c) => c.kind === 'sso');
  const signIn = s.choices.filter((c) => c.kind === 'sign_in');
  const choices = [
    ...mfa.map((c) => ({ id: choiceId(c), label: c.label, type: 'mfa_method', description: null, observed_selector: c.selector })),
    ...sso.map((c) => ({ id: choiceId(c), label: c.label, type: 'sso_provider', description: null, observed_selector: c.selector })),
    ...signIn.map((c) => ({ id: choiceId(c), label: c.label, type: 'account', description: c.description ?? null, observed_selector: c.selector })),
  ];
  return {
    discovered_fields: discovered.length ? discovered : null,
    fields,
    mfa_options: mfa.length ? mfa.map((c) => ({ type: c.value, label: c.label, description: null, target: /\d{2,}|\*/.exec(c.label) ? c.label : null })) : null,
    pending_sso_buttons: sso.length ? sso.map((c) => ({ selector: c.selector, provider: c.value, label: c.label })) : null,
    sign_in_options: signIn.length ? signIn.map((c) => ({ id: choiceId(c), label: c.label, description: c.description ?? null })) : null,
    choices: choices.length ? choices : null,
  };
}
