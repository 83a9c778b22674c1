/**
 * `GET /audit-logs` through the official client: the time window (start inclusive, end
 * exclusive, ≤ 30 days, end defaulting to now), every filter, free-text search with extra user
 * ids, newest-first page-token paging to the end, bad input, and organization isolation.
 * A hand-set clock gives every seeded request a known timestamp.
 *
 * @database time windows, filters and free-text search are queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { flushAudit, identityOf, manualClock, secondOrg, sec, days } from './audit-helpers.js';

const T = '2026-03-01T00:00:00.000Z';
const clock = manualClock(days(T, -60));
let t: TestEngine;
let adminId: string;
let key2: { key: string; id: string };
let other: { orgId: string; key: string; keyId: string };

const window = { start: T, end: sec(T, 10) };

/** The seed index of each returned entry, read back from its timestamp (T + i seconds). */
const idx = (items: Array<{ timestamp: string }>) => items.map((e) => (new Date(e.timestamp).getTime() - new Date(T).getTime()) / 1000);

async function list(q: Record<string, unknown>, client: Kernel = t.client) {
  const page = await client.auditLogs.list({ ...window, ...q } as Parameters<Kernel['auditLogs']['list']>[0]);
  return page.getPaginatedItems();
}

beforeAll(async () => {
  t = await startTestEngine({ clock });
  adminId = (await identityOf(t, t.adminKey)).userId;
  const issued = await t.engine.context.apiKeys.issue({ orgId: t.engine.context.orgId, name: 'second', projectId: null, createdById: null, expiresAt: null });
  key2 = { key: issued.key, id: issued.row.id };
  other = await secondOrg(t);
  const k2 = (p: string, init: RequestInit = {}) => t.api(p, { ...init, headers: { authorization: `Bearer ${key2.key}` } });
  const seeds: Array<() => Promise<Response | unknown>> = [
    () => t.api('/org/projects'), // 0
    () => t.api('/org/projects', { method: 'POST', json: { name: 'p-audit' } }), // 1
    () => t.api('/org/projects/p-audit'), // 2
    () => k2('/org/projects?query=zzz'), // 3
    () => fetch(`${t.url}/org/projects`), // 4: 401
    () => fetch(`${t.url}/healthz`, { headers: { authorization: 'Bearer wrong' } }), // 5: public
    () => t.api('/org/projects/p-audit', { method: 'PATCH', json: { name: 'p-audit2' } }), // 6
    () => t.api('/org/projects/p-audit2', { method: 'DELETE' }), // 7
    () => t.api('/nope'), // 8: 404
    () => k2('/org/projects/does-not-exist'), // 9: 404
  ];
  for (const [i, run] of seeds.entries()) {
    clock.set(sec(T, i));
    await run();
  }
  clock.set(days(T, -40));
  await t.api('/org/projects?old=1');
  clock.set(sec(T, 5.5));
  await t.api('/org/projects?other-org=1', { headers: { authorization: `Bearer ${other.key}` } });
  clock.set(sec(T, 3600));
  await flushAudit(t);
});
afterAll(async () => {
  await t?.stop();
});

describe('GET /audit-logs', () => {
  it('returns the window newest first, start inclusive and end exclusive', async () => {
    expect(idx(await list({}))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(idx(await list({ start: sec(T, 3), end: sec(T, 5) }))).toEqual([4, 3]);
    const [e] = await list({ start: sec(T, 2), end: sec(T, 3) });
    expect(e).toEqual({
      timestamp: sec(T, 2),
      auth_strategy: 'api_key',
      user_id: adminId,
      email: expect.any(String),
      method: 'GET',
      path: '/org/projects/p-audit',
      route: '/org/projects/:id',
      domain: '127.0.0.1',
      client_ip: '127.0.0.1',
      user_agent: expect.any(String),
      status: 200,
      duration_ms: expect.any(Number),
    });
  });

  it('defaults a missing end to now', async () => {
    const res = await t.api(`/audit-logs?start=${T}`);
    expect(res.status).toBe(200);
    expect(idx(await res.json())).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it('filters by auth strategy, service and method', async () => {
    expect(idx(await list({ auth_strategy: 'none' }))).toEqual([5, 4]);
    expect(idx(await list({ auth_strategy: 'api_key' }))).toEqual([9, 8, 7, 6, 3, 2, 1, 0]);
    expect(idx(await list({ service: 'healthz' }))).toEqual([5]);
    expect(idx(await list({ service: 'org' }))).toEqual([9, 7, 6, 4, 3, 2, 1, 0]);
    expect(idx(await list({ method: 'POST' }))).toEqual([1]);
    expect(idx(await list({ method: 'delete' }))).toEqual([7]);
    expect(idx(await list({ service: 'org', method: 'GET', auth_strategy: 'api_key' }))).toEqual([9, 3, 2, 0]);
  });

  it('excludes methods, comma-joined by the client or as repeated parameters', async () => {
    expect(idx(await list({ exclude_method: ['GET'] }))).toEqual([7, 6, 1]);
    expect(idx(await list({ exclude_method: ['GET', 'POST'] }))).toEqual([7, 6]);
    const res = await t.api(`/audit-logs?start=${window.start}&end=${window.end}&exclude_method=GET&exclude_method=patch`);
    expect(idx(await res.json())).toEqual([7, 1]);
  });

  it('searches path, user id, email, client IP and status, ORing extra user ids', async () => {
    expect(idx(await list({ search: 'p-audit' }))).toEqual([7, 6, 2]);
    expect(idx(await list({ search: 'P-AUDIT2' }))).toEqual([7]);
    expect(idx(await list({ search: key2.id }))).toEqual([9, 3]);
    const email = (await identityOf(t, t.adminKey)).email;
    expect(idx(await list({ search: email }))).toEqual([9, 8, 7, 6, 3, 2, 1, 0]);
    expect(idx(await list({ search: '127.0.0' }))).toHaveLength(10);
    expect(idx(await list({ search: '401' }))).toEqual([4]);
    expect(idx(await list({ search: '404' }))).toEqual([9, 8]);
    expect(idx(await list({ search_user_id: [key2.id] }))).toEqual([9, 3]);
    expect(idx(await list({ search: '/nope', search_user_id: [key2.id, 'unknown-id'] }))).toEqual([9, 8, 3]);
    expect(idx(await list({ search: 'no-match-anywhere' }))).toEqual([]);
    expect(idx(await list({ search: '100%_' }))).toEqual([]);
  });

  it('pages newest first through X-Next-Page-Token until X-Has-More is false', async () => {
    let page = await t.client.auditLogs.list({ ...window, limit: 3 });
    const pages = [idx(page.getPaginatedItems())];
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      pages.push(idx(page.getPaginatedItems()));
    }
    expect(pages).toEqual([[9, 8, 7], [6, 5, 4], [3, 2, 1], [0]]);
    const all = [];
    for await (const e of t.client.auditLogs.list({ ...window, limit: 4 })) all.push(e);
    expect(idx(all)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const last = await t.api(`/audit-logs?start=${window.start}&end=${window.end}&limit=10`);
    expect(last.headers.get('x-has-more')).toBe('false');
    expect(last.headers.get('x-next-page-token')).toBeNull();
    const first = await t.api(`/audit-logs?start=${window.start}&end=${window.end}&limit=9`);
    expect(first.headers.get('x-has-more')).toBe('true');
    expect(first.headers.get('x-next-page-token')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('limits the window to 30 days', async () => {
    expect(idx(await list({ start: days(T, -30), end: T }))).toEqual([]);
    const old = await list({ start: days(T, -41), end: days(T, -39) });
    expect(old.map((e) => e.path)).toEqual(['/org/projects?old=1']);
    const err = await t.client.auditLogs.list({ start: days(T, -31), end: T }).catch((e) => e);
    expect(err).toBeInstanceOf(Kernel.BadRequestError);
    expect(err.error.details[0].message).toMatch(/30 days/);
    const noEnd = await t.api(`/audit-logs?start=${days(T, -31)}`);
    expect(noEnd.status).toBe(400);
  });

  it('answers 400 with the Error object for bad input', async () => {
    const base = `start=${window.start}&end=${window.end}`;
    const token = (await t.api(`/audit-logs?${base}&limit=2`)).headers.get('x-next-page-token')!;
    const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1);
    const forged = Buffer.from(JSON.stringify(['not a time', 1])).toString('base64url');
    const cases: Array<[string, string]> = [
      ['', 'start'],
      [`end=${window.end}`, 'start'],
      [`start=yesterday&end=${window.end}`, 'start'],
      [`start=${window.start}&end=2026-13-45T00:00:00Z`, 'end'],
      [`start=${window.end}&end=${window.start}`, 'end'],
      [`${base}&limit=0`, 'limit'],
      [`${base}&limit=101`, 'limit'],
      [`${base}&limit=ten`, 'limit'],
      [`${base}&exclude_method=${Array.from({ length: 11 }, (_, i) => `M${i}`).join(',')}`, 'exclude_method'],
      [`${base}&search_user_id=${Array.from({ length: 101 }, (_, i) => `u${i}`).join(',')}`, 'search_user_id'],
      [`${base}&page_token=not!a!token`, 'page_token'],
      [`${base}&page_token=${flipped}`, 'page_token'],
      [`${base}&page_token=${forged}`, 'page_token'],
      [`${base}&page_token=${token}x`, 'page_token'],
    ];
    for (const [query, field] of cases) {
      const res = await t.api(`/audit-logs?${query}`);
      const body = await res.json();
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(body.code).toBe('invalid_request');
      expect(body.details.map((d: { message: string }) => d.message).join(' ')).toContain(field);
    }
    // Through the client too.
    await expect(t.client.auditLogs.list({ ...window, limit: 0 })).rejects.toBeInstanceOf(Kernel.BadRequestError);
  });

  it('requires an API key and shows only the caller organization', async () => {
    expect((await fetch(`${t.url}/audit-logs?start=${T}`)).status).toBe(401);
    expect(await list({ search: 'other-org' })).toEqual([]);
    expect(await list({ search_user_id: [other.keyId] })).toEqual([]);
    const otherClient = t.clientWith({ apiKey: other.key });
    const theirs = await list({ end: sec(T, 3600) }, otherClient);
    expect(theirs.map((e) => [e.path, e.user_id])).toEqual([['/org/projects?other-org=1', other.keyId]]);
  });
});
