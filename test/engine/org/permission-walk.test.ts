/**
 * Permission before validation on every route: a key scoped to project A, aimed at what it has
 * no right to — another project's session, profile, pool, credential, proxy, auth connection,
 * key or project, or an id that does not exist — with a malformed body (wrong shape, and
 * `{not json`) or a malformed query, gets 403 or 404 from every route in /openapi.json: never
 * 400 (which would describe the route's fields, or confirm the resource, to a caller without
 * the right) and never 2xx. (A NUL anywhere in the URL is the one exception, refused with 400
 * before authentication by http/nul-guard.ts so that no id holding one reaches the database.)
 *
 * @database every resource lookup by id or name is a query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
let scopedKey: string;
const foreign: Record<string, string> = {};
const ops: Array<{ method: string; path: string; query: string[] }> = [];

beforeAll(async () => {
  t = await startTestEngine();
  const b = await t.client.projects.create({ name: 'project-b' });
  await t.client.projects.create({ name: 'project-a' });
  scopedKey = (await t.client.apiKeys.create({ name: 'a-key', project_id: 'project-a' })).key;
  const inB = t.clientWith({ projectID: b.id });
  // One resource of each kind in project B.
  const session = await inB.browsers.create({ headless: true, timeout_seconds: 300 });
  const profile = await inB.profiles.create({ name: 'b-profile' });
  const pool = await inB.browserPools.create({ name: 'b-pool', size: 1 });
  const cred = await inB.credentials.create({ name: 'b-cred', domain: 'b.example', values: { password: 'x' } });
  const proxy = await inB.proxies.create({ name: 'b-proxy', type: 'custom', config: { host: 'proxy.example.test', port: 3128 } });
  const conn = await inB.auth.connections.create({ domain: 'b.example', profile_name: 'b-profile' });
  const key = await t.client.apiKeys.create({ name: 'b-key', project_id: b.id });
  Object.assign(foreign, {
    session: session.session_id,
    profile: profile.id!,
    pool: pool.id,
    cred: cred.id,
    proxy: proxy.id!,
    conn: conn.id,
    key: key.id,
    project: b.id,
  });
  const doc = (await (await t.api('/openapi.json')).json()) as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>> };
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(methods))
      ops.push({ method: m.toUpperCase(), path: p, query: (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name) });
  }
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

/** Project B's resource for a path's first parameter, by the path's resource; unknown kinds get a made-up id. */
function foreignIdFor(path: string): string {
  const prefixes: Array<[string, string]> = [
    ['/browsers/', foreign.session],
    ['/profiles/', foreign.profile],
    ['/browser_pools/', foreign.pool],
    ['/credentials/', foreign.cred],
    ['/proxies/', foreign.proxy],
    ['/auth/connections/', foreign.conn],
    ['/org/api_keys/', foreign.key],
    ['/org/projects/', foreign.project],
    ['/projects/', foreign.project],
  ];
  return prefixes.find(([p]) => path.startsWith(p))?.[1] ?? 'zzzzzzzzzzzzzzzzzzzzzzzz';
}

/** Paths the scoped key has no right to: every parameterized path filled with B's ids (or unknown ids). */
function urlOf(path: string): string {
  let first = true;
  return path.replace(/\{[^}]+\}/g, () => {
    const id = first ? foreignIdFor(path) : 'zzzzzzzzzzzzzzzzzzzzzzzz';
    first = false;
    return id;
  });
}

const hasBody = (m: string) => !['GET', 'HEAD', 'OPTIONS'].includes(m);

describe('a project-scoped key against what it has no right to', () => {
  it('gets 403 or 404 from every route with a resource id, whatever it sends — never 400, never 2xx', async () => {
    const targeted = ops.filter((o) => o.path.includes('{'));
    expect(targeted.length).toBeGreaterThan(80);
    const wrong: string[] = [];
    for (const op of targeted) {
      const url = urlOf(op.path);
      const sends: Array<{ q: string; body?: string; what: string }> = hasBody(op.method)
        ? [
            { q: '', body: '[1, {"unknown": true}]', what: 'wrong-shape body' },
            { q: '', body: '{not json', what: 'unparsable body' },
          ]
        : // (A NUL in the URL is refused before authentication, by design: no id with it may reach a query.)
          [{ q: op.query.length ? `?${op.query.map((n) => `${n}=%7B%7D%5B`).join('&')}&limit=-1` : '', what: 'malformed query' }];
      for (const s of sends) {
        const res = await fetch(t.url + url + s.q, {
          method: op.method,
          headers: { authorization: `Bearer ${scopedKey}`, ...(s.body ? { 'content-type': 'application/json' } : {}) },
          body: s.body,
          signal: AbortSignal.timeout(20_000),
        });
        const text = op.method === 'HEAD' ? '' : await res.text().catch(() => '');
        // 410: the removed legacy route says so to everyone, before looking at anything.
        const gone = res.status === 410 && op.path === '/projects/{id}/limits';
        if (res.status !== 403 && res.status !== 404 && !gone) wrong.push(`${op.method} ${op.path} (${s.what}) → ${res.status} ${text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it('gets 403 from the organization-level writes, whatever the body', async () => {
    const orgWrites = ['POST /org/projects', 'PATCH /org/limits', 'POST /org/credential_providers', 'POST /deployments/local'];
    for (const w of orgWrites) {
      const [method, path] = w.split(' ');
      for (const body of ['[1]', '{not json']) {
        const res = await fetch(t.url + path, { method, headers: { authorization: `Bearer ${scopedKey}`, 'content-type': 'application/json' }, body });
        expect(res.status, `${w} ${body}`).toBe(403);
      }
    }
  });
});
