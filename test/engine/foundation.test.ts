/**
 * The engine's foundation: boot, migrations, the admin key, the basic routes.
 *
 * @database migrations and first-start rows as each store makes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

describe('engine foundation', () => {
  it('answers /healthz without auth', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, jail: { enabled: true }, store: { ok: true } });
  });

  it('writes the admin key with mode 0600 on first start', async () => {
    const st = await fs.stat(path.join(t.dataDir, 'admin-api-key'));
    expect(st.mode & 0o777).toBe(0o600);
    expect(t.adminKey).toMatch(/^bdk_/);
  });

  it('refuses requests without or with a wrong bearer key using the Error object', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
      const res = await fetch(`${t.url}/org/projects`, { headers });
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body).toMatchObject({ code: 'unauthorized', message: expect.any(String), details: [] });
    }
  });

  it('serves an OpenAPI document generated from the route schemas', async () => {
    const res = await t.api('/openapi.json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.paths['/org/projects'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'offset', 'query', 'name']),
    );
  });

  it('answers unknown routes with a 404 Error object', async () => {
    const res = await t.api('/no/such/route');
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe('not_found');
  });

  it('rejects malformed JSON with 400 and accepts an empty JSON body where a body is optional', async () => {
    const bad = await t.api('/org/projects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('invalid_request');
    const list = await t.client.projects.list();
    const empty = await t.api(`/org/projects/${list.items[0].id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
  });

  it('does not coerce JSON body types and reports one detail per invalid field', async () => {
    // `extra` is not one: an unknown field is ignored (forward compatibility, http/unknown-fields.ts).
    const res = await t.api('/org/projects', { method: 'POST', json: { name: 5, extra: true } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.details).toHaveLength(1);
    expect(body.details.map((d: { message: string }) => d.message).join(' ')).toMatch(/name/);
  });
});
