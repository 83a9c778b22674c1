/**
 * `/org/projects` through the official client: create, get by id or name, exact name
 * (case/accent-insensitive) and substring filters, patch, delete rules (last project,
 * non-empty project → permanent 409), pagination headers and bad input.
 *
 * @database name filters (case/accent-insensitive) and delete rules are queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { expectApiError, expectErrorResponse } from './org-fixtures.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const listNames = async (query: Record<string, unknown> = {}) => {
  const out: string[] = [];
  for await (const p of t.client.projects.list({ limit: 100, ...query })) out.push(p.name);
  return out;
};

describe('projects', () => {
  it('creates a project and reads it by id and by name (case- and accent-insensitive)', async () => {
    const p = await t.client.projects.create({ name: 'Café Ops' });
    expect(p).toEqual({ id: expect.any(String), name: 'Café Ops', status: 'active', created_at: expect.any(String), updated_at: expect.any(String) });
    expect(await t.client.projects.retrieve(p.id)).toEqual(p);
    expect(await t.client.projects.retrieve('cafe ops')).toEqual(p);
    expect(await t.client.projects.retrieve('CAFÉ OPS')).toEqual(p);
    await expectApiError(t.client.projects.retrieve('cafe'), 404);
  });

  it('refuses duplicate names permanently (409, x-should-retry: false), including accent/case variants', async () => {
    await t.client.projects.create({ name: 'Dup Name' });
    for (const name of ['Dup Name', 'dup name', 'DÜP NAME', '  dup name ']) {
      const res = await t.api('/org/projects', { method: 'POST', json: { name } });
      await expectErrorResponse(res, 409);
      expect(res.headers.get('x-should-retry')).toBe('false');
    }
  });

  it('lets exactly one of several concurrent creates with the same name win', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => t.api('/org/projects', { method: 'POST', json: { name: 'race' } })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it('filters by exact name and by case-insensitive substring', async () => {
    await t.client.projects.create({ name: 'Alpha Team' });
    await t.client.projects.create({ name: 'alphabet soup' });
    expect(await listNames({ name: 'ALPHA TEAM' })).toEqual(['Alpha Team']);
    expect(await listNames({ name: 'alpha' })).toEqual([]);
    expect((await listNames({ query: 'ALPHA' })).sort()).toEqual(['Alpha Team', 'alphabet soup']);
    expect(await listNames({ query: 'fe op' })).toEqual(['Café Ops']);
    expect(await listNames({ query: '%' })).toEqual([]);
  });

  it('patches name and status and validates the patch', async () => {
    const p = await t.client.projects.create({ name: 'to-patch' });
    const renamed = await t.client.projects.update(p.id, { name: 'patched' });
    expect(renamed.name).toBe('patched');
    const archived = await t.client.projects.update('PATCHED', { status: 'archived' });
    expect(archived.status).toBe('archived');
    expect((await t.client.projects.retrieve(p.id)).status).toBe('archived');
    for (const body of [{ status: 'frozen' }, { name: '' }, { name: '  ' }, { name: 'x'.repeat(256) }, { name: 3 }, { extra: true, name: '' }]) {
      await expectErrorResponse(await t.api(`/org/projects/${p.id}`, { method: 'PATCH', json: body }), 400);
    }
    const clash = await t.api(`/org/projects/${p.id}`, { method: 'PATCH', json: { name: 'alpha team' } });
    await expectErrorResponse(clash, 409);
    await expectApiError(t.client.projects.update('no-such-project', { name: 'x' }), 404);
  });

  it('rejects bad create bodies with one detail per invalid field', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(256) }, { name: null }, { name: ['a'] }]) {
      const err = await expectErrorResponse(await t.api('/org/projects', { method: 'POST', json: body }), 400);
      expect(err.details).toHaveLength(1);
    }
    expect((await t.client.projects.create({ name: '项'.repeat(255) })).name).toHaveLength(255);
  });

  it('deletes an empty project; the name becomes free again', async () => {
    const p = await t.client.projects.create({ name: 'short-lived' });
    await t.client.projects.delete(p.id);
    await expectApiError(t.client.projects.retrieve(p.id), 404);
    await expectApiError(t.client.projects.delete(p.id), 404);
    expect(await listNames({ name: 'short-lived' })).toEqual([]);
    const again = await t.client.projects.create({ name: 'short-lived' });
    expect(again.id).not.toBe(p.id);
  });

  it('refuses to delete a project that still has live API keys (409, no retry)', async () => {
    const p = await t.client.projects.create({ name: 'has-keys' });
    const k = await t.client.apiKeys.create({ name: 'pinned', project_id: p.id });
    const res = await t.api(`/org/projects/${p.id}`, { method: 'DELETE' });
    const err = await expectErrorResponse(res, 409);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(err.message).toMatch(/not empty.*API key/);
    await t.client.apiKeys.delete(k.id);
    await t.client.projects.delete(p.id);
  });

  it('answers unknown ids with 404 and out-of-range paging with 400', async () => {
    await expectApiError(t.client.projects.retrieve('nope'), 404);
    await expectApiError(t.client.projects.delete('nope'), 404);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=ten', 'offset=1.5']) {
      const err = await expectErrorResponse(await t.api(`/org/projects?${q}`), 400);
      expect(err.details).toHaveLength(1);
    }
  });

  it('pages with X-Has-More / absolute X-Next-Offset and the client iterates every page', async () => {
    for (let i = 0; i < 5; i++) await t.client.projects.create({ name: `page-${i}` });
    const all = await listNames();
    const total = all.length;
    const page = await t.api('/org/projects?limit=3&offset=3');
    expect(page.headers.get('x-has-more')).toBe(total > 6 ? 'true' : 'false');
    expect(page.headers.get('x-next-offset')).toBe(total > 6 ? '6' : '0');
    const tail = await t.api(`/org/projects?limit=3&offset=${total - 2}`);
    expect(tail.headers.get('x-has-more')).toBe('false');
    expect(tail.headers.get('x-next-offset')).toBe('0');
    const first = await t.client.projects.list({ limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.has_more).toBe(true);
    expect(first.next_offset).toBe(3);
    const iterated: string[] = [];
    for await (const p of t.client.projects.list({ limit: 3 })) iterated.push(p.name);
    expect(iterated).toEqual(all);
    expect(new Set(iterated).size).toBe(total);
  });

  it('never deletes the last project (409, no retry)', async () => {
    const projects: string[] = [];
    for await (const p of t.client.projects.list({ limit: 100 })) projects.push(p.id);
    // Free every project of its keys first: only the admin key (org-wide) remains live.
    for await (const k of t.client.apiKeys.list({ limit: 100 })) if (k.project_id) await t.client.apiKeys.delete(k.id);
    for (const id of projects.slice(1)) await t.client.projects.delete(id);
    const res = await t.api(`/org/projects/${projects[0]}`, { method: 'DELETE' });
    const err = await expectErrorResponse(res, 409);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(err.message).toMatch(/last project/);
    expect((await t.client.projects.list()).items.map((p) => p.id)).toEqual([projects[0]]);
  });
});
