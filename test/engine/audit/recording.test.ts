/**
 * Every request lands in the audit log with who, what, where and how it ended: SDK calls,
 * failed auth, unknown routes, hijacked (streaming) replies and WebSocket upgrades — and the
 * secrets in query strings (`jwt`, `token`) are never stored.
 *
 * @database audit rows as each store writes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { features } from '../../../src/engine/features.js';
import type { Feature } from '../../../src/engine/feature.js';
import { openSse } from '../../../src/engine/http/sse.js';
import { auditTable, eventually, identityOf } from './audit-helpers.js';

/** Test-only routes: an SSE stream (a hijacked reply) and a WebSocket endpoint. */
const probeFeature: Feature = {
  name: 'audit-probe',
  register(app, ctx) {
    app.get('/audit-probe/stream/:n', async (req, reply) => {
      const stream = openSse(reply);
      stream.send({ event: 'log', n: (req.params as { n: string }).n });
      stream.close();
    });
    const wss = new WebSocketServer({ noServer: true });
    ctx.upgrades.register('/audit-probe/ws', { audit: 'audit-probe' }, (req, socket, head) => {
      wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', () => ws.close(1000)));
    });
    ctx.onStop(() => wss.close());
  },
};

let t: TestEngine;
let admin: { userId: string; email: string };

beforeAll(async () => {
  t = await startTestEngine({}, [...features, probeFeature]);
  admin = await identityOf(t, t.adminKey);
});
afterAll(async () => {
  await t?.stop();
});

const rowsFor = async (pathPrefix: string) => (await auditTable(t)).filter((r) => r.path.startsWith(pathPrefix));

describe('audit recording', () => {
  it('records an SDK call with identity, route template, service, domain, client and timing', async () => {
    const created = await t.client.projects.create({ name: 'audit-rec' });
    await t.client.projects.retrieve(created.id);
    const rows = await rowsFor(`/org/projects/${created.id}`);
    expect(rows).toHaveLength(1);
    const r = rows[0];
    expect(r).toMatchObject({
      org_id: t.engine.context.orgId,
      auth_strategy: 'api_key',
      user_id: admin.userId,
      email: admin.email,
      method: 'GET',
      route: '/org/projects/:id',
      service: 'org',
      domain: '127.0.0.1',
      client_ip: '127.0.0.1',
      status: 200,
    });
    expect(r.user_agent).toMatch(/^Kernel\/JS /);
    expect(Number.isInteger(r.duration_ms) && r.duration_ms >= 0).toBe(true);
    expect(new Date(r.timestamp).toISOString()).toBe(r.timestamp);
    const post = (await auditTable(t)).find((x) => x.method === 'POST' && x.path === '/org/projects');
    expect(post?.status).toBe(200);
  });

  it('records failed authentication as strategy none in the engine organization', async () => {
    const res = await fetch(`${t.url}/org/projects?probe=badkey`, { headers: { authorization: 'Bearer not-a-key', 'user-agent': 'probe-agent/1' } });
    expect(res.status).toBe(401);
    const noKey = await fetch(`${t.url}/org/projects?probe=nokey`);
    expect(noKey.status).toBe(401);
    const rows = await rowsFor('/org/projects?probe=');
    expect(rows.map((r) => [r.path, r.status, r.auth_strategy, r.user_id, r.email, r.org_id])).toEqual([
      ['/org/projects?probe=badkey', 401, 'none', '', '', t.engine.context.orgId],
      ['/org/projects?probe=nokey', 401, 'none', '', '', t.engine.context.orgId],
    ]);
    expect(rows[0].user_agent).toBe('probe-agent/1');
    expect(rows[0].route).toBe('/org/projects');
  });

  it('records unknown routes (404) and public routes', async () => {
    expect((await t.api('/no-such-thing/here')).status).toBe(404);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    const [nf] = await rowsFor('/no-such-thing');
    expect(nf).toMatchObject({ status: 404, service: 'no-such-thing', auth_strategy: 'api_key', user_id: admin.userId });
    const [health] = await rowsFor('/healthz');
    expect(health).toMatchObject({ status: 200, service: 'healthz', auth_strategy: 'none', route: '/healthz' });
  });

  it('never stores jwt or token query values, anywhere in the audit table', async () => {
    const secret = 'sEcReT-jwt-9f8e7d';
    const token = 'tOkEn-value-1a2b3c';
    await fetch(`${t.url}/org/projects?jwt=${secret}&limit=5`);
    await t.api(`/org/projects?token=${token}&query=x`);
    await t.api(`/org/projects?a=1&JWT=${secret}2`);
    const rows = await auditTable(t);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(token);
    const paths = rows.map((r) => r.path);
    expect(paths).toContain('/org/projects?jwt=REDACTED&limit=5');
    expect(paths).toContain('/org/projects?token=REDACTED&query=x');
    expect(paths).toContain('/org/projects?a=1&JWT=REDACTED');
    // Nor can the search find it.
    const found = await t.client.auditLogs.list({
      start: new Date(Date.now() - 3600_000).toISOString(),
      end: new Date(Date.now() + 3600_000).toISOString(),
      search: secret,
    });
    expect(found.getPaginatedItems()).toEqual([]);
  });

  it('shows an action to a search that starts right after the action answered (read-your-writes)', async () => {
    const start = new Date(Date.now() - 60_000).toISOString();
    const end = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < 20; i++) {
      const p = await t.client.projects.create({ name: `read-your-writes-${i}` });
      await t.client.projects.delete(p.id);
      // No wait and no flush by the test: the search itself must see both rows.
      const page = await t.client.auditLogs.list({ start, end, search: p.id, limit: 100 });
      const entries = page.getPaginatedItems().filter((e) => e.path === `/org/projects/${p.id}`);
      expect(entries.map((e) => `${e.method} ${e.status}`)).toEqual(['DELETE 204']);
    }
  });

  it('records hijacked streaming replies when the stream ends', async () => {
    const res = await t.api('/audit-probe/stream/7', { headers: { accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(await res.text()).toContain('"n":"7"');
    const [row] = await eventually(t, async () => {
      const rows = await rowsFor('/audit-probe/stream/7');
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(row).toMatchObject({ status: 200, route: '/audit-probe/stream/:n', service: 'audit-probe', auth_strategy: 'api_key', user_id: admin.userId });
  });

  it('records WebSocket upgrades: accepted (101, secret redacted), with a key, and unmatched (404)', async () => {
    const talk = (url: string, headers: Record<string, string> = {}) =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(url, { headers });
        ws.on('open', () => ws.send('bye'));
        ws.on('close', () => resolve());
        ws.on('error', reject);
      });
    const wsBase = t.url.replace('http', 'ws');
    await talk(`${wsBase}/audit-probe/ws?jwt=ws-secret-123`);
    await talk(`${wsBase}/audit-probe/ws?k=1`, { authorization: `Bearer ${t.adminKey}` });
    await expect(talk(`${wsBase}/nowhere/ws`)).rejects.toThrow(/404/);
    const rows = await eventually(t, async () => {
      const all = (await auditTable(t)).filter((r) => r.path.startsWith('/audit-probe/ws') || r.path.startsWith('/nowhere'));
      expect(all).toHaveLength(3);
      return all;
    });
    const byPath = Object.fromEntries(rows.map((r) => [r.path, r]));
    expect(byPath['/audit-probe/ws?jwt=REDACTED']).toMatchObject({ status: 101, auth_strategy: 'session_jwt', service: 'audit-probe', method: 'GET' });
    expect(byPath['/audit-probe/ws?k=1']).toMatchObject({ status: 101, auth_strategy: 'api_key', user_id: admin.userId, email: admin.email });
    expect(byPath['/nowhere/ws']).toMatchObject({ status: 404, auth_strategy: 'none' });
    expect(JSON.stringify(await auditTable(t))).not.toContain('ws-secret-123');
  });
});
