/**
 * Choices in managed login, against the real login website and real Chromium: an MFA method
 * choice page (discovered as `mfa_options` / `choices`, answered with `mfa_option_id` or
 * `selected_choice_id`), and an SSO button that leads to a second local server acting as the
 * identity provider (`pending_sso_buttons`, `sso_button_selector`): followed when its host is in
 * `allowed_domains`, a clear FAILED flow when it is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLoginSite, type LoginSite } from '../../helpers/login-site.js';
import { encodeBase32, totpFromSecret } from '../../../src/engine/domain/credentials/totp.js';
import type { SessionRegistry } from '../../../src/engine/runtime/session/session-handle.js';

const TOTP_SECRET = encodeBase32(Buffer.from('browserdeck-choice-secret'));
let t: TestEngine;
let site: LoginSite;

beforeAll(async () => {
  site = await startLoginSite(
    {
      'ann@example.test': { password: 'correct horse' },
      'cho@example.test': { password: 'choice-pass', mfa: 'choice', totpSecret: TOTP_SECRET },
    },
    { idp: { 'ann-idp': { password: 'idp-pass', user: 'ann@example.test' } } },
  );
  t = await startTestEngine({ identity: { minHealthCheckIntervalSeconds: 1, authFlowTtlSeconds: 120 } });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

type Conn = Awaited<ReturnType<TestEngine['client']['auth']['connections']['retrieve']>>;
const retrieve = (id: string) => t.client.auth.connections.retrieve(id);
const awaiting = (id: string, what: string, ok: (c: Conn) => boolean) =>
  pollUntil(
    what,
    () => retrieve(id),
    (c) => (c.flow_step === 'AWAITING_INPUT' && ok(c)) || c.flow_status !== 'IN_PROGRESS',
  );
const finished = (id: string) =>
  pollUntil(
    'flow end',
    () => retrieve(id),
    (c) => c.flow_status !== 'IN_PROGRESS' && c.flow_status !== null,
  );

/** Login flow up to the MFA method page of cho@example.test. */
async function toMethodPage(id: string): Promise<Conn> {
  await t.client.auth.connections.login(id);
  await awaiting(id, 'email step', (c) => c.fields?.[0]?.type === 'identifier');
  await t.client.auth.connections.submit(id, { fields: { email: 'cho@example.test' } });
  await awaiting(id, 'password step', (c) => c.fields?.[0]?.type === 'password');
  await t.client.auth.connections.submit(id, { fields: { password: 'choice-pass' } });
  const state = await awaiting(id, 'method choice', (c) => !!c.mfa_options);
  expect(state.flow_status).toBe('IN_PROGRESS');
  return state;
}

describe('auth connection flows: MFA method choice', () => {
  it('reports the offered methods and follows mfa_option_id to the SMS code step', async () => {
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'cho-sms',
      login_url: site.loginUrl,
      health_checks: false,
      save_credentials: false,
    });
    const state = await toMethodPage(c.id);
    expect(state.mfa_options).toEqual([
      expect.objectContaining({ type: 'sms', label: 'Text me a code' }),
      expect.objectContaining({ type: 'totp', label: 'Use an authenticator app' }),
    ]);
    expect(state.choices).toEqual([
      expect.objectContaining({ id: 'mfa_sms', type: 'mfa_method' }),
      expect.objectContaining({ id: 'mfa_totp', type: 'mfa_method' }),
    ]);
    expect(state.fields).toEqual([]);

    // Not offered here → 400, and the flow still waits.
    await expect(t.client.auth.connections.submit(c.id, { mfa_option_id: 'call' })).rejects.toMatchObject({ status: 400 });
    expect(site.chosenMethods).toEqual([]);

    await t.client.auth.connections.submit(c.id, { mfa_option_id: 'sms' });
    const code = await awaiting(c.id, 'code step', (x) => x.fields?.[0]?.type === 'code');
    expect(code.discovered_fields?.[0]).toMatchObject({ type: 'code', linked_mfa_type: 'sms' });
    expect(site.chosenMethods).toEqual(['sms']);
    await t.client.auth.connections.submit(c.id, { fields: { code: site.smsCode('cho@example.test')! } });
    expect(await finished(c.id)).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });
  });

  it('follows selected_choice_id to the authenticator step', async () => {
    const before = site.signIns['cho@example.test'] ?? 0;
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'cho-totp',
      login_url: site.loginUrl,
      health_checks: false,
      save_credentials: false,
    });
    await toMethodPage(c.id);
    await t.client.auth.connections.submit(c.id, { selected_choice_id: 'mfa_totp' });
    const step = await awaiting(c.id, 'totp step', (x) => x.fields?.[0]?.type === 'totp_code');
    expect(step.fields?.[0]).toMatchObject({ id: 'fld_otp', label: 'Authenticator app code' });
    expect(site.chosenMethods.at(-1)).toBe('totp');
    await t.client.auth.connections.submit(c.id, { field_values: { fld_otp: totpFromSecret(TOTP_SECRET, new Date()).code } });
    expect(await finished(c.id)).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });
    expect(site.signIns['cho@example.test']).toBe(before + 1);
  });
});

describe('auth connection flows: SSO', () => {
  it('fails clearly when the SSO button leads outside domain and allowed_domains', async () => {
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'sso-denied',
      login_url: site.loginUrl,
      health_checks: false,
      save_credentials: false,
    });
    await t.client.auth.connections.login(c.id);
    const state = await awaiting(c.id, 'sign-in page', (x) => !!x.pending_sso_buttons);
    expect(state.pending_sso_buttons).toEqual([{ provider: 'exampleid', label: 'Sign in with ExampleID', selector: expect.stringMatching(/^\/html/) }]);
    expect(state.choices).toEqual([expect.objectContaining({ id: 'sso_exampleid', type: 'sso_provider' })]);
    expect(state.fields?.map((f) => f.type)).toEqual(['identifier']);

    await t.client.auth.connections.submit(c.id, { sso_button_selector: state.pending_sso_buttons![0].selector });
    const end = await finished(c.id);
    expect(end).toMatchObject({ flow_status: 'FAILED', error_code: 'domain_not_allowed', status: 'NEEDS_AUTH' });
    expect(end.error_message).toContain('localhost');
    expect(end.error_message).toContain('allowed_domains');
    const [entry] = (await t.client.auth.connections.timeline(c.id)).items;
    expect(entry).toMatchObject({ type: 'login', status: 'FAILED', error_code: 'domain_not_allowed' });
    // FAILED is reported only once the flow's browser is closed.
    expect((t.engine.services.sessions as SessionRegistry).get(entry.browser_session_id!)).toBeUndefined();
  });

  it('follows the SSO button to the identity provider in allowed_domains and logs in there', async () => {
    const before = site.signIns['ann@example.test'] ?? 0;
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'sso-ok',
      login_url: site.loginUrl,
      allowed_domains: [site.idpHost!],
      health_checks: false,
      save_credentials: false,
    });
    expect(c.allowed_domains).toEqual(['localhost']);
    await t.client.auth.connections.login(c.id);
    const state = await awaiting(c.id, 'sign-in page', (x) => !!x.pending_sso_buttons);
    // A provider that is not offered fails the submit; the flow keeps waiting.
    await expect(t.client.auth.connections.submit(c.id, { sso_provider: 'google' })).rejects.toMatchObject({ status: 400 });
    expect((await retrieve(c.id)).flow_step).toBe('AWAITING_INPUT');

    await t.client.auth.connections.submit(c.id, { sso_button_selector: state.pending_sso_buttons![0].selector });
    const idp = await awaiting(c.id, 'IdP form', (x) => x.fields?.some((f) => f.label === 'ExampleID username') ?? false);
    expect(idp.flow_status).toBe('IN_PROGRESS');
    expect(idp.discovered_fields?.map((f) => [f.name, f.type])).toEqual([
      ['username', 'text'],
      ['password', 'password'],
    ]);
    expect(idp.pending_sso_buttons).toBeNull();

    await t.client.auth.connections.submit(c.id, { fields: { username: 'ann-idp', password: 'wrong' } });
    const wrong = await pollUntil(
      'IdP error',
      () => retrieve(c.id),
      (x) => !!x.website_error || x.flow_status !== 'IN_PROGRESS',
    );
    expect(wrong.website_error).toBe('ExampleID does not know that username and password.');

    await t.client.auth.connections.submit(c.id, { fields: { username: 'ann-idp', password: 'idp-pass' } });
    const end = await finished(c.id);
    expect(end).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });
    expect(end.post_login_url).toBe(`${site.url}/`);
    expect(site.signIns['ann@example.test']).toBe(before + 1);
  });
});
