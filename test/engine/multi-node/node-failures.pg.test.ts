/**
 * Two nodes on one PostgreSQL database when things go wrong, and pools across nodes: a pool
 * run by A is acquired from and released through B (the browser starts and ends on A); the
 * owner's address unreachable → 503 `node_unavailable` for HTTP and WebSocket upgrades (fast,
 * not a hang or a 500) — while another org's caller still gets a plain 404 (never routed by a
 * session it cannot see); a node whose heartbeat went stale is dead → its session is ended
 * `node_lost` by the node that notices and the caller gets the normal "session ended" answer,
 * and its pool is taken over; a session B ended in the database while A still runs it is
 * ended on A by A's heartbeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PG_SKIP_REASON, PG_URL, deadPort, joinNode, nodeIdOf, nodesOf, startTestEngine, via, type TestEngine } from './two-nodes.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { configFromCreate } from '../../../src/engine/domain/pools/pool-config.js';
import { newId } from '../../../src/engine/domain/ids.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { secondOrg } from '../audit/audit-helpers.js';

let a: TestEngine;
let b: TestEngine;

const sessionsOf = (t: TestEngine) => t.engine.services.sessions as SessionManager;
const db = () => a.engine.context.db;

async function statusOf(p: Promise<unknown>): Promise<{ status?: number; code?: string; message?: string }> {
  try {
    await p;
    return { status: 200 };
  } catch (err) {
    const e = err as { status?: number; error?: { code?: string; message?: string } };
    return { status: e.status, code: e.error?.code, message: e.error?.message };
  }
}

/** The handshake answer of a WebSocket upgrade: 101, or the refusing status and body. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

/** A node that heartbeated long ago, running (per the database) `sessions` and a pool. */
async function ghostNode(template: string): Promise<{ nodeId: string; sessionId: string }> {
  const nodeId = `ghost-${newId()}`;
  const long = new Date(Date.now() - 3600_000).toISOString();
  await db()
    .insertInto('engine_nodes')
    .values({ id: nodeId, internal_url: 'http://127.0.0.1:9', started_at: long, heartbeat_at: long, stopped_at: null })
    .execute();
  const row = await db().selectFrom('browser_sessions').selectAll().where('id', '=', template).executeTakeFirstOrThrow();
  const sessionId = newId();
  await db()
    .insertInto('browser_sessions')
    .values({
      ...row,
      id: sessionId,
      name: null,
      node_id: nodeId,
      marker: `/nonexistent/${sessionId}`,
      pid: null,
      pgid: null,
      xvfb_pid: null,
      deleted_at: null,
      ended_reason: null,
    })
    .execute();
  return { nodeId, sessionId };
}

describe.skipIf(!PG_URL)(`two nodes when the owner is unreachable or dead, and pools across nodes${PG_SKIP_REASON}`, () => {
  let id: string;
  let cdpUrl: string;

  beforeAll(async () => {
    a = await startTestEngine();
    b = await joinNode(a);
    const s = await a.client.browsers.create({ headless: true, timeout_seconds: 300 });
    id = s.session_id;
    cdpUrl = s.cdp_ws_url;
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('acquires from and releases to a pool run by A through B', async () => {
    const pool = await a.client.browserPools.create({ name: 'pool-on-a', size: 1, headless: true, fill_rate_per_minute: 100 });
    await pollUntil(
      'an idle browser in the pool',
      () => b.client.browserPools.retrieve(pool.id),
      (p) => p.available_count === 1,
    );
    const got = await b.client.browserPools.acquire('pool-on-a', { acquire_timeout_seconds: 20 });
    expect(got?.session_id).toBeTruthy();
    const sid = got!.session_id;
    expect(sessionsOf(a).get(sid)).toBeDefined();
    expect(sessionsOf(b).get(sid)).toBeUndefined();
    expect((await b.client.browserPools.retrieve(pool.id)).acquired_count).toBe(1);
    await b.client.browserPools.release(pool.id, { session_id: sid, reuse: false });
    expect(sessionsOf(a).get(sid)).toBeUndefined();
    const row = await db().selectFrom('browser_sessions').select('ended_reason').where('id', '=', sid).executeTakeFirstOrThrow();
    expect(row.ended_reason).toBe('released');
    await b.client.browserPools.delete(pool.id, { force: true });
    expect(await db().selectFrom('browser_pools').select('id').where('id', '=', pool.id).executeTakeFirst()).toBeUndefined();
  });

  it('answers 503 node_unavailable when the owner cannot be reached (HTTP and WebSocket)', async () => {
    const port = await deadPort();
    await db()
      .updateTable('engine_nodes')
      .set({ internal_url: `http://127.0.0.1:${port}` })
      .where('id', '=', nodeIdOf(a))
      .execute();
    nodesOf(b).registry.forget(nodeIdOf(a));
    try {
      const r = await statusOf(b.client.browsers.fs.readFile(id, { path: '/x' }));
      expect(r).toMatchObject({ status: 503, code: 'node_unavailable' });
      expect(r.message).toContain(nodeIdOf(a));
      const ws = await upgradeStatus(via(b, cdpUrl));
      expect(ws.status).toBe(503);
      expect(JSON.parse(ws.body).code).toBe('node_unavailable');
      // Another org's caller is not routed by our session: a plain 404, no hint that it exists.
      const otherKey = (await secondOrg(a)).key;
      const other = b.clientWith({ apiKey: otherKey });
      expect(await statusOf(other.browsers.fs.readFile(id, { path: '/x' }))).toMatchObject({ status: 404, code: 'not_found' });
      expect(await statusOf(other.browsers.retrieve(id))).toMatchObject({ status: 404, code: 'not_found' });
      const otherWs = await upgradeStatus(via(b, cdpUrl).replace(/jwt=[^&]+/, ''), { authorization: `Bearer ${otherKey}` });
      expect(otherWs.status).toBe(404);
      // The session itself is fine: A still runs it.
      expect(sessionsOf(a).get(id)).toBeDefined();
    } finally {
      await db().updateTable('engine_nodes').set({ internal_url: a.url }).where('id', '=', nodeIdOf(a)).execute();
      nodesOf(b).registry.forget(nodeIdOf(a));
    }
    expect((await b.client.browsers.retrieve(id)).session_id).toBe(id);
  });

  it('ends a session of a node with a stale heartbeat as node_lost, and the caller gets the ended answer', async () => {
    const ghost = await ghostNode(id);
    const r = await statusOf(b.client.browsers.fs.readFile(ghost.sessionId, { path: '/x' }));
    expect(r).toMatchObject({ status: 404, code: 'session_ended' });
    expect(r.message).toContain('node_lost');
    const row = await db().selectFrom('browser_sessions').select(['deleted_at', 'ended_reason']).where('id', '=', ghost.sessionId).executeTakeFirstOrThrow();
    expect(row.ended_reason).toBe('node_lost');
    expect(row.deleted_at).not.toBeNull();
    expect((await statusOf(b.client.browsers.retrieve(ghost.sessionId))).status).toBe(404);
  });

  it('takes over the pool of a dead node: acquire through B then works', async () => {
    const ghost = await ghostNode(id);
    const owned = await db().selectFrom('browser_sessions').select(['org_id', 'project_id']).where('id', '=', id).executeTakeFirstOrThrow();
    const poolId = newId();
    const now = new Date().toISOString();
    const config = configFromCreate({ name: 'orphan', size: 1, headless: true, fill_rate_per_minute: 100 });
    await db()
      .insertInto('browser_pools')
      .values({
        id: poolId,
        org_id: owned.org_id,
        project_id: owned.project_id,
        name: 'orphan',
        size: 1,
        config: JSON.stringify(config),
        profile_id: null,
        node_id: ghost.nodeId,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const got = await b.client.browserPools.acquire('orphan', { acquire_timeout_seconds: 30 });
    expect(got?.session_id).toBeTruthy();
    const owner = await db().selectFrom('browser_pools').select('node_id').where('id', '=', poolId).executeTakeFirstOrThrow();
    expect([nodeIdOf(a), nodeIdOf(b)]).toContain(owner.node_id);
    const runner = owner.node_id === nodeIdOf(a) ? a : b;
    expect(sessionsOf(runner).get(got!.session_id)).toBeDefined();
    // The ghost's session went with it.
    const lost = await db().selectFrom('browser_sessions').select('ended_reason').where('id', '=', ghost.sessionId).executeTakeFirstOrThrow();
    expect(lost.ended_reason).toBe('node_lost');
    await b.client.browserPools.delete(poolId, { force: true });
  });

  it("ends on A a browser whose row B ended in the database (A's heartbeat reaps it)", async () => {
    const s = await a.client.browsers.create({ headless: true });
    await db()
      .updateTable('browser_sessions')
      .set({ deleted_at: new Date().toISOString(), ended_reason: 'node_lost' })
      .where('id', '=', s.session_id)
      .execute();
    await pollUntil(
      'A to end the browser',
      async () => !!sessionsOf(a).get(s.session_id),
      (running) => !running,
    );
    const row = await db().selectFrom('browser_sessions').select('ended_reason').where('id', '=', s.session_id).executeTakeFirstOrThrow();
    expect(row.ended_reason).toBe('node_lost');
  });
});
