/**
 * What a submission to a login flow's current step means on the page: the `fields` (by name)
 * and `field_values` (by field id) to type, and the one choice to click (an MFA method, a
 * sign-in option, an SSO button, or any choice by id). Checked against the step's snapshot
 * before anything runs, so an unknown field or choice is a 400 naming it and the page is not
 * touched.
 */
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { PageSnapshot, RawChoice, RawField } from './page-discovery.js';
import { choiceId, fieldId } from './flow-state.js';

export interface SubmitInput {
  fields?: Record<string, string>;
  field_values?: Record<string, string>;
  mfa_option_id?: string;
  selected_choice_id?: string;
  sign_in_option_id?: string;
  sso_button_selector?: string;
  sso_provider?: string;
}

export interface Submission {
  fills: Array<{ field: RawField; value: string }>;
  /** Selector to click instead of pressing Enter in the last filled field. */
  click?: string;
}

/** Resolves a submission against the step; throws a 400 DomainError for anything the step does not offer. */
export function resolveSubmission(snap: PageSnapshot, input: SubmitInput): Submission {
  const fills: Submission['fills'] = [];
  const byName = new Map(snap.fields.map((f) => [f.name, f]));
  const byId = new Map(snap.fields.map((f) => [fieldId(f), f]));
  for (const [k, v] of Object.entries(input.fields ?? {})) {
    const f = byName.get(k) ?? byId.get(k);
    if (!f) throw DomainError.invalidField(`fields.${k}`, `is not a field of this step (expected one of: ${[...byName.keys()].join(', ') || 'none'})`);
    fills.push({ field: f, value: v });
  }
  for (const [k, v] of Object.entries(input.field_values ?? {})) {
    const f = byId.get(k) ?? byName.get(k);
    if (!f) throw DomainError.invalidField(`field_values.${k}`, `is not a field id of this step (expected one of: ${[...byId.keys()].join(', ') || 'none'})`);
    fills.push({ field: f, value: v });
  }
  const click = choiceSelector(snap, input);
  if (fills.length === 0 && !click) throw DomainError.badRequest('nothing to submit: give fields, field_values or a choice');
  return { fills, click };
}

/** SSO buttons are found by XPath (pending_sso_buttons give XPath); the others by CSS. */
const selectorOf = (c: RawChoice): string => (c.kind === 'sso' ? `xpath=${c.selector}` : c.selector);

function choiceSelector(snap: PageSnapshot, input: SubmitInput): string | undefined {
  const pick = (kind: RawChoice['kind'], match: (c: RawChoice) => boolean, what: string, given: string): string => {
    const c = snap.choices.find((x) => x.kind === kind && match(x));
    if (!c) throw DomainError.invalidField(what, `'${given}' is not offered on this step`);
    return selectorOf(c);
  };
  const byValueOrId = (given: string) => (c: RawChoice) => c.value === given || choiceId(c) === given;
  if (input.mfa_option_id) return pick('mfa', byValueOrId(input.mfa_option_id), 'mfa_option_id', input.mfa_option_id);
  if (input.sign_in_option_id) return pick('sign_in', byValueOrId(input.sign_in_option_id), 'sign_in_option_id', input.sign_in_option_id);
  if (input.sso_provider) {
    const wanted = input.sso_provider.toLowerCase();
    return pick('sso', (c) => c.value === wanted, 'sso_provider', input.sso_provider);
  }
  if (input.sso_button_selector) {
    pick('sso', () => true, 'sso_button_selector', input.sso_button_selector); // the step must offer SSO at all
    const sel = input.sso_button_selector;
    return sel.startsWith('/') || sel.startsWith('(') ? `xpath=${sel}` : sel;
  }
  if (input.selected_choice_id) {
    const c = snap.choices.find((x) => choiceId(x) === input.selected_choice_id);
    if (!c) throw DomainError.invalidField('selected_choice_id', `'${input.selected_choice_id}' is not offered on this step`);
    return selectorOf(c);
  }
  return undefined;
}
