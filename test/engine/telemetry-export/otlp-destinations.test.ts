/**
 * `/telemetry/destinations` (Kernel spec §12) as raw HTTP, the way a newer SDK sends it: CRUD
 * with header values hidden on every read and encrypted at rest, PATCH editing headers per name,
 * name/query filters and pages, validation as Error objects (400/409/422), org-scoped writes
 * (a project-scoped key reads but gets 403 on writes, before its body is looked at), other orgs'
 * destinations unknown, and the operator's host policy (egress deny ranges, --otlp-allowed-hosts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { createOtherOrg, expectErrorResponse } from '../org/org-fixtures.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const post = (json: unknown, key?: string) =>
  t.api('/telemetry/destinations', { method: 'POST', json, headers: key ? { authorization: `Bearer ${key}` } : {} });
const patch = (id: string, json: unknown, key?: string) =>
  t.api(`/telemetry/destinations/${id}`, { method: 'PATCH', json, headers: key ? { authorization: `Bearer ${key}` } : {} });

async function projectKey(): Promise<string> {
  const ctx = t.engine.context;
  const project = await ctx.projects.create(ctx.orgId, `p-${Math.random().toString(36).slice(2, 8)}`);
  return (await ctx.apiKeys.issue({ orgId: ctx.orgId, name: 'scoped', projectId: project.id, createdById: null, expiresAt: null })).key;
}

describe('telemetry destinations', () => {
  it('creates, reads, lists, patches and deletes; header values are never answered and are encrypted at rest', async () => {
    const res = await post({
      name: 'honeycomb',
      endpoint: 'https://api.honeycomb.example/',
      description: 'team logs',
      headers: { 'x-honeycomb-team': 'hc-secret-1', authorization: 'Bearer tok-secret-2' },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const d = await res.json();
    expect(d).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{24}$/),
      name: 'honeycomb',
      endpoint: 'https://api.honeycomb.example',
      description: 'team logs',
      headers: { 'X-Honeycomb-Team': '', Authorization: '' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      consecutive_failures: 0,
    });
    expect(await (await t.api(`/telemetry/destinations/${d.id}`)).json()).toEqual(d);
    expect(await (await t.api('/telemetry/destinations/HONEYCOMB')).json()).toEqual(d);

    const rows = JSON.stringify(await t.engine.context.db.selectFrom('telemetry_destinations').selectAll().execute());
    expect(rows).not.toContain('hc-secret-1');
    expect(rows).not.toContain('tok-secret-2');

    // Headers per name: null deletes (any spelling), a string adds or replaces, omitted keeps.
    const p = await patch(d.id, { headers: { AUTHORIZATION: null, 'X-Extra': 'v' }, endpoint: 'http://127.0.0.1:4318', name: 'hc-logs' });
    expect(p.status, await p.clone().text()).toBe(200);
    const patched = await p.json();
    expect(patched).toMatchObject({
      name: 'hc-logs',
      endpoint: 'http://127.0.0.1:4318',
      headers: { 'X-Honeycomb-Team': '', 'X-Extra': '' },
      description: 'team logs',
    });
    expect(Object.keys(patched.headers).sort()).toEqual(['X-Extra', 'X-Honeycomb-Team']);
    const records = t.engine.services.telemetryExports.records;
    expect(records.headersOf(await records.get(t.engine.context.orgId, d.id))).toEqual({ 'X-Honeycomb-Team': 'hc-secret-1', 'X-Extra': 'v' });

    const second = await (await post({ name: 'grafana', endpoint: 'http://otel.internal:4318/otlp' })).json();
    const page1 = await t.api('/telemetry/destinations?limit=1');
    expect((await page1.json()).map((x: { id: string }) => x.id)).toEqual([d.id]);
    expect(page1.headers.get('x-has-more')).toBe('true');
    expect(page1.headers.get('x-next-offset')).toBe('1');
    expect((await (await t.api('/telemetry/destinations?query=otel.internal')).json()).map((x: { id: string }) => x.id)).toEqual([second.id]);
    expect((await (await t.api('/telemetry/destinations?name=GRAFANA')).json()).map((x: { id: string }) => x.id)).toEqual([second.id]);
    expect((await (await t.api(`/telemetry/destinations?query=${second.id}`)).json()).map((x: { id: string }) => x.id)).toEqual([second.id]);

    expect((await t.api(`/telemetry/destinations/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectErrorResponse(await t.api(`/telemetry/destinations/${second.id}`), 404);
  });

  it('refuses bad input with Error objects: 400 for fields, 409 for a taken name', async () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ name: 'a', endpoint: 'https://collector.example/v1/logs' }, /signal path/],
      [{ name: 'a', endpoint: 'https://collector.example/otlp?x=1' }, /query/],
      [{ name: 'a', endpoint: 'ftp://collector.example' }, /http/],
      [{ name: 'a', endpoint: 'not a url' }, /URL/],
      [{ name: 'a b', endpoint: 'https://collector.example' }, /name/],
      [{ name: 'abcdefghijklmnopqrstuvwx', endpoint: 'https://collector.example' }, /id/],
      [{ name: 'a', endpoint: 'https://collector.example', headers: { Authorization: '1', authorization: '2' } }, /more than once/],
      [{ name: 'a', endpoint: 'https://collector.example', headers: { 'bad header': '1' } }, /header name/],
      [{ name: 'a', endpoint: 'https://collector.example', headers: { 'X-Key': 'a\r\nX-Injected: 1' } }, /control/],
      [{ name: 'a', endpoint: 'https://collector.example', headers: { 'Content-Type': 'text/plain' } }, /exporter/],
      [{ name: 'a', endpoint: 'https://collector.example', headers: { 'X-Big': 'x'.repeat(9000) } }, /8192/],
      [{ endpoint: 'https://collector.example' }, /name/],
    ];
    for (const [body, message] of bad) {
      const err = await expectErrorResponse(await post(body), 400);
      expect(err.message, JSON.stringify(body).slice(0, 100)).toMatch(message);
      expect(err.message).not.toContain('a\r\nX-Injected');
    }
    await post({ name: 'taken', endpoint: 'https://collector.example' });
    const dup = await expectErrorResponse(await post({ name: 'TAKEN', endpoint: 'https://collector.example' }), 409);
    expect(dup.code).toBe('destination_name_taken');
  });

  it('org-scoped writes: a project-scoped key reads, and gets 403 on writes whatever the body; another org sees nothing', async () => {
    const created = await (await post({ name: 'scoped-view', endpoint: 'https://collector.example', headers: { 'X-Key': 'k-secret' } })).json();
    const key = await projectKey();
    const got = await t.api(`/telemetry/destinations/${created.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(got.status).toBe(200);
    expect((await got.json()).headers).toEqual({ 'X-Key': '' });
    await expectErrorResponse(await post({ name: 'nope', endpoint: 'https://collector.example' }, key), 403);
    await expectErrorResponse(await post({ bogus: true }, key), 403);
    await expectErrorResponse(await patch(created.id, { name: 'x y z' }, key), 403);
    await expectErrorResponse(await t.api(`/telemetry/destinations/${created.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }), 403);

    const other = await createOtherOrg(t, 'otlp-other');
    const as = { headers: { authorization: `Bearer ${other.key}` } };
    await expectErrorResponse(await t.api(`/telemetry/destinations/${created.id}`, as), 404);
    await expectErrorResponse(await t.api('/telemetry/destinations/scoped-view', as), 404);
    expect(await (await t.api('/telemetry/destinations', as)).json()).toEqual([]);
    await expectErrorResponse(await t.api(`/telemetry/destinations/${created.id}`, { method: 'DELETE', ...as }), 404);
    // Out of reach is 404 whatever the body: a body the schema refuses does not answer 400 first (resource-lookup-first).
    await expectErrorResponse(await t.api(`/telemetry/destinations/${created.id}`, { method: 'PATCH', json: { name: 5 }, ...as }), 404);
    await expectErrorResponse(await t.api('/telemetry/destinations/scoped-view', { method: 'PATCH', json: { name: 5 }, ...as }), 404);
    await expectErrorResponse(await patch(created.id, { name: 5 }), 400);
  });

  it('a credential that is not an API key gets 403 on reads too, before its query is validated', async () => {
    const ctx = t.engine.context;
    // Stands in for a session token: same org, but not an API key.
    ctx.authenticators.unshift((_req, bearer) =>
      bearer === 'otlp-session-token'
        ? { orgId: ctx.orgId, strategy: 'session_jwt', userId: 'session-1', email: 'admin@browserdeck.local', projectId: null, sessionId: 'session-1' }
        : null,
    );
    const as = { headers: { authorization: 'Bearer otlp-session-token' } };
    await expectErrorResponse(await t.api('/telemetry/destinations', as), 403);
    await expectErrorResponse(await t.api('/telemetry/destinations?limit=many', as), 403);
    await expectErrorResponse(await t.api('/telemetry/destinations/anything', as), 403);
    await expectErrorResponse(await t.api('/telemetry/destinations?limit=many'), 400);
  });

  it('applies the operator policy: the egress deny ranges always, an allow list when configured', async () => {
    const meta = await expectErrorResponse(await post({ name: 'metadata', endpoint: 'http://169.254.169.254' }), 422);
    expect(meta.code).toBe('destination_not_allowed');
    const restricted = await startTestEngine({ otlpAllowedHosts: ['collector.example.test', '10.1.0.0/16'] });
    try {
      const at = (json: unknown) => restricted.api('/telemetry/destinations', { method: 'POST', json });
      const local = await expectErrorResponse(await at({ name: 'local', endpoint: 'http://127.0.0.1:4318' }), 422);
      expect(local.message).toMatch(/not in the hosts this engine allows/);
      expect((await at({ name: 'ok-name', endpoint: 'https://collector.example.test' })).status).toBe(200);
      expect((await at({ name: 'ok-range', endpoint: 'http://10.1.2.3:4318' })).status).toBe(200);
      const created = await (await restricted.api('/telemetry/destinations/ok-name')).json();
      await expectErrorResponse(
        await restricted.api(`/telemetry/destinations/${created.id}`, { method: 'PATCH', json: { endpoint: 'http://localhost:4318' } }),
        422,
      );
    } finally {
      await restricted.stop();
    }
  });
});

describe('entitlements', () => {
  it('say telemetry export is on; an engine whose environment sets OTEL exporter headers turns it off (they would reach tenants’ collectors)', async () => {
    expect((await (await t.api('/org/entitlements')).json()).features.telemetry_export).toEqual({ enabled: true });
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-operator-key=operator-secret';
    let off: TestEngine | undefined;
    try {
      off = await startTestEngine();
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    }
    try {
      expect((await (await off.api('/org/entitlements')).json()).features.telemetry_export).toEqual({ enabled: false });
      await off.api('/telemetry/destinations', { method: 'POST', json: { name: 'x', endpoint: 'http://127.0.0.1:4318' } });
      const err = await expectErrorResponse(
        await off.api('/browsers', { method: 'POST', json: { headless: true, telemetry: { export: { otlp: { destination: { name: 'x' } } } } } }),
        422,
      );
      expect(err.code).toBe('telemetry_export_unavailable');
    } finally {
      await off.stop();
    }
  });
});
