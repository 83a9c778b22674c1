/**
 * `/org/api_keys` through the official client: record shape, plaintext once, list filters and
 * sorting, pagination headers and auto-pagination, rename, delete (immediately stops
 * authenticating; never the calling key), and bad input on every route.
 *
 * @database list filters, sorting and pagination are queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { DAY, expectApiError, expectErrorResponse, manualClock } from './org-fixtures.js';

// A hand-moved clock, so that creation order is strictly reflected in created_at.
const clock = manualClock();
let t: TestEngine;
let adminId: string;
beforeAll(async () => {
  t = await startTestEngine({ clock });
  const all = await t.client.apiKeys.list();
  adminId = all.items.find((k) => k.name === 'admin')!.id;
});
afterAll(() => t?.stop());

describe('API keys: create and read', () => {
  it('creates a key, returns the plaintext once and a masked record afterwards', async () => {
    const created = await t.client.apiKeys.create({ name: 'ci-runner', days_to_expire: 30 });
    expect(created).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      created_by: { id: adminId, email: 'admin@browserdeck.local', name: 'admin' },
      deleted_at: null,
      expires_at: expect.any(String),
      masked_key: expect.any(String),
      name: 'ci-runner',
      project_id: null,
      project_name: null,
      key: expect.stringMatching(/^bdk_/),
    });
    expect(Date.parse(created.expires_at!) - Date.parse(created.created_at)).toBe(30 * DAY);
    expect(created.masked_key).not.toContain(created.key.slice(8, -4));
    expect(created.masked_key.startsWith(created.key.slice(0, 6))).toBe(true);

    const fetched = await t.client.apiKeys.retrieve(created.id);
    expect(fetched).not.toHaveProperty('key');
    const { key, ...record } = created;
    expect(fetched).toEqual(record);
    // The plaintext works as a bearer key.
    const viaNewKey = await t.clientWith({ apiKey: key }).projects.list();
    expect(viaNewKey.items.length).toBeGreaterThan(0);
  });

  it('creates a never-expiring key by default and a project-scoped key with project_id', async () => {
    const project = await t.client.projects.create({ name: 'keys-project' });
    const forever = await t.client.apiKeys.create({ name: 'forever', days_to_expire: null });
    expect(forever.expires_at).toBeNull();
    const scoped = await t.client.apiKeys.create({ name: 'scoped', project_id: project.id });
    expect(scoped).toMatchObject({ project_id: project.id, project_name: 'keys-project', expires_at: null });
    // The creator of a key made with the scoped key is that key.
    const child = await t.clientWith({ apiKey: scoped.key }).apiKeys.create({ name: 'child' });
    expect(child.created_by).toEqual({ id: scoped.id, email: 'admin@browserdeck.local', name: 'scoped' });
    expect(child.project_id).toBe(project.id);
  });

  it('accepts names of 255 code points (astral characters count once) and trims them', async () => {
    const name = '🔑'.repeat(255);
    expect((await t.client.apiKeys.create({ name })).name).toBe(name);
    expect((await t.client.apiKeys.create({ name: '  padded  ' })).name).toBe('padded');
  });

  it('rejects bad create bodies with 400 and one detail per field', async () => {
    const cases: unknown[] = [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(256) },
      { name: 5 },
      { name: 'a', days_to_expire: 0 },
      { name: 'a', days_to_expire: -1 },
      { name: 'a', days_to_expire: 3651 },
      { name: 'a', days_to_expire: 1.5 },
      { name: 'a', days_to_expire: '5' },
      { name: 'a', project_id: 5 },
      { name: 'a', project_id: '' },
      // An unknown field alone is ignored (forward compatibility, http/unknown-fields.ts); with a bad one it is still a 400.
      { name: 5, unknown_field: true },
    ];
    for (const body of cases) {
      const res = await t.api('/org/api_keys', { method: 'POST', json: body });
      const err = await expectErrorResponse(res, 400);
      expect(err.details.length, JSON.stringify(body)).toBeGreaterThanOrEqual(1);
    }
    const two = await expectErrorResponse(await t.api('/org/api_keys', { method: 'POST', json: { days_to_expire: 'x' } }), 400);
    expect(two.details).toHaveLength(2);
  });

  it('answers 404 for an unknown project_id and unknown key ids', async () => {
    await expectApiError(t.client.apiKeys.create({ name: 'x', project_id: 'no-such-project' }), 404);
    await expectApiError(t.client.apiKeys.retrieve('no-such-key'), 404);
    await expectApiError(t.client.apiKeys.update('no-such-key', { name: 'x' }), 404);
    await expectApiError(t.client.apiKeys.delete('no-such-key'), 404);
    await expectApiError(t.client.apiKeys.rotate('no-such-key'), 404);
  });
});

describe('API keys: rename and delete', () => {
  it('renames a key and validates the new name', async () => {
    const k = await t.client.apiKeys.create({ name: 'old-name' });
    expect((await t.client.apiKeys.update(k.id, { name: 'new-name' })).name).toBe('new-name');
    expect((await t.client.apiKeys.retrieve(k.id)).name).toBe('new-name');
    for (const body of [{}, { name: '' }, { name: 7 }, { name: 'x'.repeat(256) }, { name: '', extra: 1 }]) {
      await expectErrorResponse(await t.api(`/org/api_keys/${k.id}`, { method: 'PATCH', json: body }), 400);
    }
  });

  it('deletes a key: it stops authenticating at once and is only visible with include_deleted', async () => {
    const k = await t.client.apiKeys.create({ name: 'doomed' });
    const doomed = t.clientWith({ apiKey: k.key });
    await doomed.projects.list(); // warms the authentication cache
    await t.client.apiKeys.delete(k.id);
    await expectApiError(doomed.projects.list(), 401);
    await expectApiError(t.client.apiKeys.retrieve(k.id), 404);
    const seen = await t.client.apiKeys.retrieve(k.id, { include_deleted: true });
    expect(seen.deleted_at).toEqual(expect.any(String));
    await expectApiError(t.client.apiKeys.delete(k.id), 404);
    await expectApiError(t.client.apiKeys.update(k.id, { name: 'zombie' }), 404);
    await expectApiError(t.client.apiKeys.rotate(k.id), 404);
  });

  it('refuses to let a key delete itself, permanently (no retry), and the key keeps working', async () => {
    const k = await t.client.apiKeys.create({ name: 'self' });
    const res = await t.api(`/org/api_keys/${k.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${k.key}` } });
    const err = await expectErrorResponse(res, 409);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(err.message).toMatch(/cannot delete itself/);
    expect((await t.clientWith({ apiKey: k.key }).apiKeys.retrieve(k.id)).deleted_at).toBeNull();
    await expectApiError(t.client.apiKeys.delete(adminId), 409);
  });
});

describe('API keys: listing', () => {
  let ids: Record<string, string>;
  beforeAll(async () => {
    const p = await t.client.projects.create({ name: 'Zeta Listing' });
    ids = {};
    for (const [name, days] of [
      ['List Café', 10],
      ['list b', 5],
      ['list d', null],
      ['LIST CAFE', 20],
    ] as const) {
      clock.advance(1000);
      ids[name] = (await t.client.apiKeys.create({ name, days_to_expire: days })).id;
    }
    ids.scoped = (await t.client.apiKeys.create({ name: 'in-zeta', project_id: p.id })).id;
    ids.gone = (await t.client.apiKeys.create({ name: 'list-gone' })).id;
    await t.client.apiKeys.delete(ids.gone);
  });

  const names = async (query: Record<string, unknown>) => {
    const out: string[] = [];
    for await (const k of t.client.apiKeys.list({ limit: 100, ...query })) out.push(k.name);
    return out;
  };

  it('filters by status: active (default) hides deleted keys, deleted and all show them', async () => {
    expect(await names({})).not.toContain('list-gone');
    expect(await names({ status: 'active' })).not.toContain('list-gone');
    expect(await names({ status: 'deleted' })).toContain('list-gone');
    expect(await names({ status: 'deleted', query: 'list' })).toEqual(['list-gone']);
    expect(await names({ status: 'all' })).toContain('list-gone');
    expect(await names({ include_deleted: true })).toContain('list-gone');
    expect(await names({ include_deleted: true, status: 'active' })).not.toContain('list-gone');
  });

  it('matches name exactly, case- and accent-insensitively', async () => {
    expect((await names({ name: 'list cafe' })).sort()).toEqual(['LIST CAFE', 'List Café']);
    expect(await names({ name: 'list' })).toEqual([]);
    expect(await names({ name: 'list-gone', status: 'all' })).toEqual(['list-gone']);
  });

  it('searches name, creator, project and id/masked-key prefixes with query', async () => {
    expect((await names({ query: 'CAFÉ' })).sort()).toEqual(['LIST CAFE', 'List Café']);
    expect(await names({ query: 'zeta' })).toEqual(['in-zeta']);
    // Every key was created by the admin key, so the creator's name matches them all.
    expect((await names({ query: 'admin' })).length).toBe((await names({})).length);
    const one = await t.client.apiKeys.retrieve(ids['list b']);
    expect(await names({ query: one.id.slice(0, 10) })).toEqual(['list b']);
    expect(await names({ query: one.masked_key })).toEqual(['list b']);
    expect(await names({ query: 'no match at all %_' })).toEqual([]);
  });

  it('sorts by name, created_at and expires_at in both directions', async () => {
    const mine = (list: string[]) => list.filter((n) => /^list/i.test(n));
    // Names differ only in letters, so any database collation orders them the same way.
    expect(mine(await names({ sort_by: 'name', sort_direction: 'asc' }))).toEqual(['list b', 'List Café', 'LIST CAFE', 'list d']);
    expect(mine(await names({ sort_by: 'name', sort_direction: 'desc' }))).toEqual(['list d', 'LIST CAFE', 'List Café', 'list b']);
    expect(mine(await names({ sort_by: 'created_at', sort_direction: 'asc' }))).toEqual(['List Café', 'list b', 'list d', 'LIST CAFE']);
    expect(mine(await names({}))).toEqual(['LIST CAFE', 'list d', 'list b', 'List Café']);
    // Never-expiring keys sort as the latest expiry.
    expect(mine(await names({ sort_by: 'expires_at', sort_direction: 'asc' }))).toEqual(['list b', 'List Café', 'LIST CAFE', 'list d']);
    expect(mine(await names({ sort_by: 'expires_at', sort_direction: 'desc' }))).toEqual(['list d', 'LIST CAFE', 'List Café', 'list b']);
  });

  it('pages with X-Has-More / absolute X-Next-Offset (0 on the last page) and auto-paginates', async () => {
    const total = (await names({})).length;
    expect(total).toBeGreaterThan(4);
    const first = await t.api('/org/api_keys?limit=2');
    expect(first.headers.get('x-has-more')).toBe('true');
    expect(first.headers.get('x-next-offset')).toBe('2');
    expect(await first.json()).toHaveLength(2);
    const second = await t.api('/org/api_keys?limit=2&offset=2');
    expect(second.headers.get('x-next-offset')).toBe('4');
    const last = await t.api(`/org/api_keys?limit=2&offset=${total - 1}`);
    expect(last.headers.get('x-has-more')).toBe('false');
    expect(last.headers.get('x-next-offset')).toBe('0');
    expect(await last.json()).toHaveLength(1);
    const seen: string[] = [];
    let pages = 0;
    for await (const page of (await t.client.apiKeys.list({ limit: 2 })).iterPages()) {
      pages++;
      seen.push(...page.items.map((k) => k.id));
    }
    expect(pages).toBe(Math.ceil(total / 2));
    expect(new Set(seen).size).toBe(total);
  });

  it('rejects out-of-range paging and unknown enum values', async () => {
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'status=expired', 'sort_by=id', 'sort_direction=up', 'include_deleted=maybe']) {
      const err = await expectErrorResponse(await t.api(`/org/api_keys?${q}`), 400);
      expect(err.details).toHaveLength(1);
    }
    // On a key that exists: an unknown id is a 404 before the query is validated (resource-lookup-first).
    const own = (await t.client.apiKeys.list({ name: 'admin' })).items[0];
    await expectErrorResponse(await t.api(`/org/api_keys/${own.id}?include_deleted=perhaps`), 400);
    await expectErrorResponse(await t.api('/org/api_keys/x?include_deleted=perhaps'), 404);
  });
});
