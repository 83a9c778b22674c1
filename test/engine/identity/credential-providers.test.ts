import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { createOtherOrg, expectApiError, expectErrorResponse } from '../org/org-fixtures.js';
import { auditTable } from '../audit/audit-helpers.js';
import { closedPort, fakeServiceAccountToken, silentServer } from './onepassword-fixtures.js';

let t: TestEngine;
const TIMEOUT_MS = 1500;
beforeAll(async () => {
  t = await startTestEngine({ identity: { credentialProviderTimeoutMs: TIMEOUT_MS } });
});
afterAll(() => t?.stop());

describe('credential providers: records', () => {
  it('creates, lists (query, pages), gets, patches and deletes; the token never comes back', async () => {
    const token = fakeServiceAccountToken('127.0.0.1:9');
    const created = await t.client.credentialProviders.create({ token, name: 'team-1p', provider_type: 'onepassword' });
    expect(created).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      enabled: true,
      name: 'team-1p',
      priority: 0,
      provider_type: 'onepassword',
    });
    const second = await t.client.credentialProviders.create({
      token: fakeServiceAccountToken('127.0.0.1:9'),
      name: 'ops-vaults',
      provider_type: 'onepassword',
      cache_ttl_seconds: 60,
    });

    const all = [];
    for await (const p of t.client.credentialProviders.list({ limit: 1 })) all.push(p.name);
    expect(all).toEqual(['team-1p', 'ops-vaults']);
    const page = await t.client.credentialProviders.list({ limit: 1 });
    expect(page.getPaginatedItems().map((p) => p.name)).toEqual(['team-1p']);
    expect(page.hasNextPage()).toBe(true);
    expect((await t.client.credentialProviders.list({ query: 'OPS' })).getPaginatedItems().map((p) => p.id)).toEqual([second.id]);
    expect((await t.client.credentialProviders.list({ query: created.id })).getPaginatedItems().map((p) => p.name)).toEqual(['team-1p']);

    expect(await t.client.credentialProviders.retrieve(created.id)).toEqual(created);

    const renamed = await t.client.credentialProviders.update(created.id, { name: 'team-1password' });
    expect(renamed.name).toBe('team-1password');
    const disabled = await t.client.credentialProviders.update(created.id, { enabled: false, priority: 5 });
    expect(disabled).toMatchObject({ enabled: false, priority: 5, name: 'team-1password' });
    const newToken = fakeServiceAccountToken('127.0.0.1:10');
    const rotated = await t.client.credentialProviders.update(created.id, { token: newToken, cache_ttl_seconds: 10 });
    expect(rotated).toMatchObject({ enabled: false, priority: 5 });
    expect(Object.keys(rotated).sort()).toEqual(['created_at', 'enabled', 'id', 'name', 'priority', 'provider_type', 'updated_at']);

    // Stored encrypted: the row holds neither token in clear.
    const rows = await t.engine.context.db.selectFrom('credential_providers').selectAll().execute();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(newToken);
    expect(stored).not.toContain(newToken.slice(4, 40));

    await t.client.credentialProviders.delete(second.id);
    await expectApiError(t.client.credentialProviders.retrieve(second.id), 404, /credential provider/);
    await expectApiError(t.client.credentialProviders.delete(second.id), 404);
    await t.client.credentialProviders.delete(created.id);
    expect((await t.client.credentialProviders.list()).getPaginatedItems()).toEqual([]);
  });

  it('answers 409 for a duplicate name (create and rename), 404 for unknown ids, 400 for a bad provider_type or body', async () => {
    const a = await t.client.credentialProviders.create({ token: 'ops_x', name: 'dup', provider_type: 'onepassword' });
    const b = await t.client.credentialProviders.create({ token: 'ops_y', name: 'other', provider_type: 'onepassword' });
    const conflict = await expectApiError(t.client.credentialProviders.create({ token: 'ops_z', name: 'dup', provider_type: 'onepassword' }), 409, /dup/);
    expect(conflict.code).toBe('credential_provider_name_taken');
    await expectApiError(t.client.credentialProviders.update(b.id, { name: 'dup' }), 409);
    await expectApiError(t.client.credentialProviders.update('nope', { name: 'x' }), 404);
    await expectApiError(t.client.credentialProviders.listItems('nope'), 404);
    await expectApiError(t.client.credentialProviders.test('nope'), 404);

    const badType = await expectErrorResponse(
      await t.api('/org/credential_providers', { method: 'POST', json: { token: 'ops_x', name: 'n', provider_type: 'bitwarden' } }),
      400,
    );
    expect(badType.details.map((d) => d.message).join(' ')).toMatch(/provider_type.*onepassword/);
    const missing = await expectErrorResponse(await t.api('/org/credential_providers', { method: 'POST', json: { provider_type: 'onepassword' } }), 400);
    expect(missing.details.length).toBeGreaterThanOrEqual(2); // token and name
    await expectErrorResponse(await t.api(`/org/credential_providers/${a.id}`, { method: 'PATCH', json: { enabled: 'yes' } }), 400);
    await expectErrorResponse(await t.api(`/org/credential_providers/${a.id}`, { method: 'PATCH', json: { cache_ttl_seconds: -1 } }), 400);
    await expectErrorResponse(
      await t.api('/org/credential_providers', { method: 'POST', json: { token: '   ', name: 'blank', provider_type: 'onepassword' } }),
      400,
    );
    await t.client.credentialProviders.delete(a.id);
    await t.client.credentialProviders.delete(b.id);
  });

  it('keeps each organization to its own providers; project keys may read but not configure', async () => {
    const mine = await t.client.credentialProviders.create({ token: 'ops_mine', name: 'shared-name', provider_type: 'onepassword' });
    const other = await createOtherOrg(t, 'cp-other');
    expect((await other.client.credentialProviders.list()).getPaginatedItems()).toEqual([]);
    await expectApiError(other.client.credentialProviders.retrieve(mine.id), 404);
    await expectApiError(other.client.credentialProviders.update(mine.id, { name: 'stolen' }), 404);
    await expectApiError(other.client.credentialProviders.delete(mine.id), 404);
    await expectApiError(other.client.credentialProviders.test(mine.id), 404);
    await expectApiError(other.client.credentialProviders.listItems(mine.id), 404);
    // The same name is free in another org.
    const theirs = await other.client.credentialProviders.create({ token: 'ops_theirs', name: 'shared-name', provider_type: 'onepassword' });
    expect((await t.client.credentialProviders.list()).getPaginatedItems().map((p) => p.id)).toEqual([mine.id]);
    expect((await other.client.credentialProviders.list()).getPaginatedItems().map((p) => p.id)).toEqual([theirs.id]);

    const project = await t.client.projects.create({ name: 'cp-project' });
    const key = await t.client.apiKeys.create({ name: 'cp-project-key', project_id: project.id });
    const scoped = t.clientWith({ apiKey: key.key! });
    expect((await scoped.credentialProviders.retrieve(mine.id)).name).toBe('shared-name');
    await expectApiError(scoped.credentialProviders.create({ token: 'ops_p', name: 'p', provider_type: 'onepassword' }), 403);
    await t.client.credentialProviders.delete(mine.id);
  });
});

describe('credential providers: talking to 1Password', () => {
  it('test answers success false with the reason when the account address refuses connections; items answers 503', async () => {
    const port = await closedPort();
    const token = fakeServiceAccountToken(`127.0.0.1:${port}`);
    const p = await t.client.credentialProviders.create({ token, name: 'refused', provider_type: 'onepassword' });
    const result = await t.client.credentialProviders.test(p.id);
    expect(result.success).toBe(false);
    expect(result.vaults).toEqual([]);
    expect(result.error).toMatch(new RegExp(`1Password could not be reached at 127\\.0\\.0\\.1:${port}`));
    expect(result.error).not.toContain(token);

    const res = await t.api(`/org/credential_providers/${p.id}/items`);
    const body = await expectErrorResponse(res, 503);
    expect(body.code).toBe('credential_provider_unavailable');
    expect(body.message).toMatch(/could not be reached/);
    await t.client.credentialProviders.delete(p.id);
  });

  it('test gives up at the engine deadline when the account address accepts but never answers', async () => {
    const silent = await silentServer();
    try {
      const p = await t.client.credentialProviders.create({
        token: fakeServiceAccountToken(`127.0.0.1:${silent.port}`),
        name: 'silent',
        provider_type: 'onepassword',
      });
      const result = await t.client.credentialProviders.test(p.id);
      expect(result).toMatchObject({ success: false, vaults: [] });
      expect(result.error).toMatch(/1Password \(provider 'silent'\) did not answer within 1\.5 s/);
      expect(silent.connections()).toBeGreaterThan(0); // it really tried that address
      await expectApiError(t.client.credentialProviders.listItems(p.id), 503, /did not answer/);
      await t.client.credentialProviders.delete(p.id);
    } finally {
      await silent.close();
    }
  });

  it('a malformed token is reported as rejected (502 for items), not as a server error', async () => {
    const p = await t.client.credentialProviders.create({ token: 'ops_not-a-real-token', name: 'malformed', provider_type: 'onepassword' });
    const result = await t.client.credentialProviders.test(p.id);
    expect(result).toMatchObject({ success: false, vaults: [] });
    expect(result.error).toMatch(/1Password rejected the service account token/);
    const body = await expectErrorResponse(await t.api(`/org/credential_providers/${p.id}/items`), 502);
    expect(body.code).toBe('credential_provider_error');
    await t.client.credentialProviders.delete(p.id);
  });

  it('no token appears in the audit log entries of these calls', async () => {
    const token = fakeServiceAccountToken('127.0.0.1:9');
    const p = await t.client.credentialProviders.create({ token, name: 'audited', provider_type: 'onepassword' });
    const token2 = fakeServiceAccountToken('127.0.0.1:9');
    await t.client.credentialProviders.update(p.id, { token: token2 });
    // A token in a query string (not how the client sends it) is redacted too.
    await t.api(`/org/credential_providers?query=x&token=${encodeURIComponent(token)}`);
    await t.client.credentialProviders.test(p.id);
    const rows = await auditTable(t);
    const recorded = rows.filter((r) => r.path.startsWith('/org/credential_providers'));
    expect(recorded.length).toBeGreaterThanOrEqual(4);
    const text = JSON.stringify(rows);
    for (const secret of [token, token2, token.slice(4, 40), token2.slice(4, 40)]) expect(text).not.toContain(secret);
    await t.client.credentialProviders.delete(p.id);
  });
});
