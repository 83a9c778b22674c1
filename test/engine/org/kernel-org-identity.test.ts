/**
 * Identity and plan as Kernel SDKs after 0.84 read them (spec kernel-api-after-0.84 §1, §5,
 * §10, §11), sent as raw HTTP because the registry's SDK stops at 0.84: `GET /org/limits`'s
 * usage fields counted live, `GET /auth/context` for an org key, a project key, a project
 * header and a session token, `GET /org/entitlements` from what this engine offers, and the
 * `X-Kernel-Project` header (id or name).
 *
 * @database org, plan and limits rows as each store reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ maxConcurrentSessions: 7 });
});
afterAll(async () => {
  await t?.stop();
});

/** A 200 answer's body, as the shape the caller names (the assertions check it). */
const json = async <T = Record<string, unknown>>(r: Response): Promise<T> => {
  const body = await r.json();
  if (r.status !== 200) throw new Error(`${r.status}: ${JSON.stringify(body)}`);
  return body as T;
};
/** `GET /auth/context` as far as these tests read it. */
type AuthContextBody = { principal: { id: string }; authorization: { credential_scope: unknown }; authentication: unknown };
type IdPage = { id: string }[] | { items?: { id: string }[]; data?: { id: string }[] };
const as = (key: string, extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${key}`, ...extra } });

describe('GET /org/limits usage fields', () => {
  it('counts running browsers and auth connections live', async () => {
    const before = await json(await t.api('/org/limits'));
    expect(before).toMatchObject({
      max_concurrent_sessions: 7,
      concurrent_sessions_used: 0,
      concurrent_sessions_available: 7,
      auth_connections_used: 0,
      max_auth_connections: null,
      vaults_used: 0,
      max_vaults: 0,
    });
    expect(before.min_health_check_interval_seconds).toBe(300);

    const s = await t.client.browsers.create({ headless: true });
    await t.client.auth.connections.create({ domain: 'usage.test', profile_name: 'usage-profile' });
    const during = await json(await t.api('/org/limits'));
    expect(during).toMatchObject({ concurrent_sessions_used: 1, concurrent_sessions_available: 6, auth_connections_used: 1 });
    // PATCH answers the same shape.
    const patched = await json(await t.api('/org/limits', { method: 'PATCH', json: { default_project_max_concurrent_sessions: 3 } }));
    expect(patched).toMatchObject({ default_project_max_concurrent_sessions: 3, concurrent_sessions_used: 1 });

    await t.client.browsers.deleteByID(s.session_id);
    expect(await json(await t.api('/org/limits'))).toMatchObject({ concurrent_sessions_used: 0, concurrent_sessions_available: 7 });
  });
});

describe('GET /auth/context', () => {
  it('describes an org-wide key, with and without a project picked by header', async () => {
    const orgWide = await json<AuthContextBody>(await t.api('/auth/context'));
    const keyId = orgWide.principal.id;
    expect(orgWide).toEqual({
      authentication: { method: 'api_key', source: 'api_key', credential_id: keyId },
      authorization: { credential_scope: { project_id: null }, effective_scope: { project_id: null } },
      organization: { id: expect.any(String) },
      principal: { id: keyId, type: 'api_key' },
    });
    const p = await t.client.projects.create({ name: 'Ctx Project' });
    for (const header of [{ 'X-Kernel-Project': p.id }, { 'X-Kernel-Project': 'Ctx Project' }, { 'X-Kernel-Project-Id': p.id }] as Array<
      Record<string, string>
    >) {
      const picked = await json(await fetch(t.url + '/auth/context', as(t.adminKey, header)));
      expect(picked.authorization).toEqual({ credential_scope: { project_id: null }, effective_scope: { project_id: p.id } });
    }
  });

  it('describes a project-scoped key and a session token', async () => {
    const p = await t.client.projects.create({ name: 'ctx-scoped' });
    const key = await t.client.apiKeys.create({ name: 'ctx-scoped-key', project_id: p.id });
    const scoped = await json(await fetch(t.url + '/auth/context', as(key.key!)));
    expect(scoped.authentication).toEqual({ method: 'api_key', source: 'api_key', credential_id: key.id });
    expect(scoped.authorization).toEqual({ credential_scope: { project_id: p.id }, effective_scope: { project_id: p.id } });

    const scopedClient = t.clientWith({ apiKey: key.key! });
    const s = await scopedClient.browsers.create({ headless: true });
    try {
      const jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
      const bySession = await json<AuthContextBody>(await fetch(`${t.url}/auth/context?jwt=${encodeURIComponent(jwt)}`));
      expect(bySession.authentication).toEqual({ method: 'jwt', source: 'api_key', credential_id: null });
      expect(bySession.authorization.credential_scope).toEqual({ project_id: p.id });
      // The token still opens nothing else outside its session.
      expect((await fetch(`${t.url}/org/limits?jwt=${encodeURIComponent(jwt)}`)).status).toBe(401);
      expect((await fetch(`${t.url}/auth/context?jwt=not.a.token`)).status).toBe(401);
    } finally {
      await scopedClient.browsers.deleteByID(s.session_id);
    }
  });

  it("says 'dashboard' for the console's sign-in", async () => {
    const H = { 'x-browserdeck-console': '1' };
    const signIn = await fetch(t.url + '/console/session', {
      method: 'POST',
      headers: { ...H, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: t.adminKey }),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const viaConsole = await json(await fetch(t.url + '/auth/context', { headers: { ...H, cookie } }));
    expect(viaConsole.authentication).toMatchObject({ method: 'api_key', source: 'dashboard' });
  });

  it('answers 401 without credentials', async () => {
    const r = await fetch(t.url + '/auth/context');
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });
});

describe('X-Kernel-Project', () => {
  it('selects a project by id or name, refuses an unknown one and two headers that disagree', async () => {
    const a = await t.client.projects.create({ name: 'header-a' });
    const b = await t.client.projects.create({ name: 'header-b' });
    const made = await json(
      await fetch(t.url + '/profiles', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json', 'X-Kernel-Project': 'header-a' },
        body: JSON.stringify({ name: 'in-a' }),
      }),
    );
    const inA = await json<IdPage>(await fetch(t.url + '/profiles', as(t.adminKey, { 'X-Kernel-Project': a.id })));
    const inB = await json<IdPage>(await fetch(t.url + '/profiles', as(t.adminKey, { 'X-Kernel-Project': 'header-b' })));
    const ids = (page: IdPage) => (Array.isArray(page) ? page : (page.items ?? page.data ?? [])).map((x) => x.id);
    expect(ids(inA)).toContain(made.id);
    expect(ids(inB)).not.toContain(made.id);
    expect((await fetch(t.url + '/profiles', as(t.adminKey, { 'X-Kernel-Project': 'no-such-project' }))).status).toBe(404);
    const both = await fetch(t.url + '/profiles', as(t.adminKey, { 'X-Kernel-Project': a.id, 'X-Kernel-Project-Id': b.id }));
    expect(both.status).toBe(400);
    expect(((await both.json()) as { message: string }).message).toMatch(/different projects/);
    expect((await fetch(t.url + '/profiles', as(t.adminKey, { 'X-Kernel-Project': a.id, 'X-Kernel-Project-Id': 'header-a' }))).status).toBe(200);
  });
});

describe('GET /org/entitlements', () => {
  it('reports what this engine offers as an active enterprise plan', async () => {
    const e = await json<{ plan: unknown; limits: unknown; features: Record<string, unknown> }>(await t.api('/org/entitlements'));
    expect(e.plan).toEqual({ id: 'ENTERPRISE', effective_id: 'ENTERPRISE', is_trialing: false, status: 'ACTIVE', trial_ends_at: null });
    expect(e.features.browser_pools).toEqual({ enabled: true });
    expect(e.features.browser_replays).toEqual({ enabled: true, retention_days: 7 });
    expect(e.features.gpu).toEqual({ enabled: false });
    expect(e.features.vaults).toEqual({ enabled: false });
    expect(e.features.managed_auth).toEqual({
      enabled: true,
      health_check_interval_default_seconds: 3600,
      health_check_interval_max_seconds: 86400,
      health_check_interval_min_seconds: 300,
      max_connections: null,
    });
    expect(e.limits).toEqual({ default_max_concurrent_invocations_per_app: null, max_concurrent_browsers: 7, max_concurrent_invocations: null, max_vaults: 0 });
  });
});
