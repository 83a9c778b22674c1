/**
 * A login-flow submission resolved against a step's snapshot (no browser): fields by name and
 * by id, choices by value and by wire id (the ids stepView answers), SSO by XPath, and a 400
 * naming whatever the step does not offer.
 */
import { describe, expect, it } from 'vitest';
import { resolveSubmission } from './flow-submission.js';
import { stepView } from './flow-state.js';
import type { PageSnapshot } from './page-discovery.js';

const snap: PageSnapshot = {
  url: 'https://example.test/login',
  title: 'Sign in',
  ready: true,
  fields: [{ name: 'email', label: 'E-mail', selector: '#email', type: 'email', required: true }],
  choices: [
    { kind: 'mfa', label: 'Text me', value: 'sms', selector: '#sms' },
    { kind: 'sso', label: 'Sign in with Google', value: 'google', selector: '//button[1]' },
    { kind: 'sign_in', label: 'Work account', value: 'work', selector: '#work' },
  ],
};

describe('login flow submissions', () => {
  it('types fields given by name or by id and clicks choices given by value or wire id', () => {
    expect(resolveSubmission(snap, { fields: { email: 'a@b.test' } }).fills.map((f) => [f.field.selector, f.value])).toEqual([['#email', 'a@b.test']]);
    expect(resolveSubmission(snap, { field_values: { fld_email: 'c@d.test' } }).fills.map((f) => f.field.selector)).toEqual(['#email']);
    expect(resolveSubmission(snap, { mfa_option_id: 'sms' }).click).toBe('#sms');
    expect(resolveSubmission(snap, { mfa_option_id: 'mfa_sms' }).click).toBe('#sms');
    expect(resolveSubmission(snap, { sign_in_option_id: 'opt_work' }).click).toBe('#work');
    expect(resolveSubmission(snap, { sso_provider: 'Google' }).click).toBe('xpath=//button[1]');
    expect(resolveSubmission(snap, { sso_button_selector: '//button[1]' }).click).toBe('xpath=//button[1]');
    // Every id the step view answers selects its choice.
    for (const c of stepView(snap).choices ?? [])
      expect(resolveSubmission(snap, { selected_choice_id: String(c.id) }).click).toBe(
        c.type === 'sso_provider' ? `xpath=${String(c.observed_selector)}` : String(c.observed_selector),
      );
  });

  it('refuses what the step does not offer with a 400 naming the field', () => {
    const fail = (input: Parameters<typeof resolveSubmission>[1]) => {
      try {
        resolveSubmission(snap, input);
      } catch (err) {
        return [(err as { status: number }).status, (err as Error).message];
      }
      return 'accepted';
    };
    expect(fail({ fields: { nope: 'x' } })).toEqual([400, expect.stringContaining('fields.nope')]);
    expect(fail({ field_values: { fld_nope: 'x' } })).toEqual([400, expect.stringContaining('field_values.fld_nope')]);
    expect(fail({ mfa_option_id: 'totp' })).toEqual([400, expect.stringContaining('mfa_option_id')]);
    expect(fail({ selected_choice_id: 'mfa_totp' })).toEqual([400, expect.stringContaining('selected_choice_id')]);
    expect(fail({})).toEqual([400, expect.stringContaining('nothing to submit')]);
  });
});
