/**
 * Auth connections that take their login values from a credential provider: the reference is
 * validated when saved (unknown provider → 404 naming it), and a login flow whose provider
 * cannot answer — unreachable, or disabled — ends FAILED with a clear error_code and message,
 * its browser closed. Real Chromium, the real login site and the real 1Password SDK aimed at
 * a closed local port; no test here signs in to 1Password successfully.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLoginSite, type LoginSite } from '../../helpers/login-site.js';
import { createOtherOrg, expectApiError } from '../org/org-fixtures.js';
import { closedPort, fakeServiceAccountToken } from './onepassword-fixtures.js';
import type { SessionRegistry } from '../../../src/engine/runtime/session/session-handle.js';

let t: TestEngine;
let site: LoginSite;
beforeAll(async () => {
  site = await startLoginSite({ 'ann@example.test': { password: 'correct horse' } });
  t = await startTestEngine({ identity: { authFlowTtlSeconds: 120, credentialProviderTimeoutMs: 5000 } });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

const finished = (id: string) =>
  pollUntil(
    'flow end',
    () => t.client.auth.connections.retrieve(id),
    (c) => c.flow_status !== 'IN_PROGRESS' && c.flow_status !== null,
  );

describe('auth connections with a credential provider', () => {
  it('validates the reference: unknown provider 404 naming it, path without provider 400, other orgs’ providers unknown', async () => {
    const err = await expectApiError(
      t.client.auth.connections.create({ domain: 'example.test', profile_name: 'cp-a', credential: { provider: 'no-such-1p', path: 'Private/Site' } }),
      404,
      /no-such-1p/,
    );
    expect(err.details[0].message).toMatch(/credential\.provider/);
    await expectApiError(
      t.client.auth.connections.create({ domain: 'example.test', profile_name: 'cp-a', credential: { path: 'Private/Site' } }),
      400,
      /credential/,
    );
    const p = await t.client.credentialProviders.create({ token: fakeServiceAccountToken('127.0.0.1:9'), name: 'ref-1p', provider_type: 'onepassword' });
    await expectApiError(
      t.client.auth.connections.create({ domain: 'example.test', profile_name: 'cp-a', credential: { provider: 'ref-1p', path: 'no-slash' } }),
      400,
      /Vault\/Item/,
    );
    const c = await t.client.auth.connections.create({
      domain: 'example.test',
      profile_name: 'cp-a',
      credential: { provider: 'ref-1p', path: 'Private/Site' },
      health_checks: false,
    });
    expect(c.credential).toEqual({ provider: 'ref-1p', path: 'Private/Site' });
    const byId = await t.client.auth.connections.update(c.id, { credential: { provider: p.id, auto: true } });
    expect(byId.credential).toEqual({ provider: p.id, auto: true });
    await expectApiError(t.client.auth.connections.update(c.id, { credential: { provider: 'nope-1p', path: 'A/B' } }), 404, /nope-1p/);

    const other = await createOtherOrg(t, 'cp-auth-other');
    await expectApiError(
      other.client.auth.connections.create({ domain: 'example.test', profile_name: 'cp-x', credential: { provider: 'ref-1p', path: 'Private/Site' } }),
      404,
      /ref-1p/,
    );
    await t.client.auth.connections.delete(c.id);
    await t.client.credentialProviders.delete(p.id);
  });

  it('a login whose provider cannot be reached ends FAILED with credential_provider_unavailable and its browser closed', async () => {
    const port = await closedPort();
    await t.client.credentialProviders.create({ token: fakeServiceAccountToken(`127.0.0.1:${port}`), name: 'down-1p', provider_type: 'onepassword' });
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'cp-down',
      login_url: site.loginUrl,
      credential: { provider: 'down-1p', path: 'Private/Example' },
      health_checks: false,
    });
    await t.client.auth.connections.login(c.id);
    const end = await finished(c.id);
    expect(end).toMatchObject({ flow_status: 'FAILED', error_code: 'credential_provider_unavailable' });
    expect(end.error_message).toMatch(new RegExp(`credential provider 'down-1p': 1Password could not be reached at 127\\.0\\.0\\.1:${port}`));
    expect(site.signIns['ann@example.test'] ?? 0).toBe(0);
    const sessions = t.engine.services.sessions as SessionRegistry;
    expect(end.browser_session_id && sessions.get(end.browser_session_id)).toBeFalsy();
    await t.client.auth.connections.delete(c.id);
  });

  it('a disabled provider is not used: the flow ends FAILED with credential_provider_disabled', async () => {
    const p = await t.client.credentialProviders.create({ token: fakeServiceAccountToken('127.0.0.1:9'), name: 'off-1p', provider_type: 'onepassword' });
    await t.client.credentialProviders.update(p.id, { enabled: false });
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'cp-off',
      login_url: site.loginUrl,
      credential: { provider: 'off-1p', path: 'Private/Example' },
      health_checks: false,
    });
    expect(c.can_reauth).toBe(false);
    await t.client.auth.connections.login(c.id);
    const end = await finished(c.id);
    expect(end).toMatchObject({ flow_status: 'FAILED', error_code: 'credential_provider_disabled' });
    expect(end.error_message).toMatch(/'off-1p' is disabled/);
    await t.client.auth.connections.delete(c.id);
  });

  it('auto without a provider asks the enabled providers by priority; the first that cannot answer fails the flow, named', async () => {
    await expectApiError(
      t.client.auth.connections.create({ domain: 'example.test', profile_name: 'cp-both', credential: { name: 'stored', auto: true } }),
      400,
      /either name/,
    );
    const port = await closedPort();
    await t.client.credentialProviders.create({ token: fakeServiceAccountToken(`127.0.0.1:${port}`), name: 'auto-first', provider_type: 'onepassword' });
    const first = (await t.client.credentialProviders.list({ query: 'auto-first' })).getPaginatedItems()[0];
    await t.client.credentialProviders.update(first.id, { priority: -5 });
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'cp-auto',
      login_url: site.loginUrl,
      credential: { auto: true },
      health_checks: false,
    });
    expect(c.credential).toEqual({ auto: true });
    await t.client.auth.connections.login(c.id);
    const end = await finished(c.id);
    expect(end).toMatchObject({ flow_status: 'FAILED', error_code: 'credential_provider_unavailable' });
    expect(end.error_message).toMatch(new RegExp(`credential providers \\(auto\\): 'auto-first': 1Password could not be reached at 127\\.0\\.0\\.1:${port}`));
    expect(site.signIns['ann@example.test'] ?? 0).toBe(0);
    await t.client.auth.connections.delete(c.id);
  });
});
