/**
 * Node loss by lease (docs/architecture/multi-node.md#node-loss), with node B a real engine
 * process (child-node.ts) and every node's heartbeat timeout at 10 minutes, so whatever ends
 * B's sessions here can only be its database lease, never a heartbeat timer:
 *
 * - B frozen (SIGSTOP: it answers nothing, the extreme of a busy node) over several of A's
 *   sweeps is not lost: its lease is held by the database, not by its event loop; once it runs
 *   again its session is served through A.
 * - B killed with SIGKILL: its session ends `node_lost` and its pool moves to A, which serves it.
 * - B cut off from the database for longer than the grace (frozen, and its lease connection
 *   terminated by the server): A declares it lost; when B runs again it takes its lease back,
 *   ends the browsers whose rows were ended, stops filling the pool A adopted, and serves again.
 *
 * The time from the kill to the session's end is printed, not asserted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, PG_URL, nodeIdOf, nodesOf, startTestEngine, via, type TestEngine } from './two-nodes.js';
import { spawnNode, type ChildNode } from './child-node.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { processesWith } from '../../helpers/chromium-web.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { MAX_FILL_RATE } from '../../../src/shared/wire/pools.js';
import { NODE_LEASE_CLASS, leaseKeyOf, leaseObjId } from '../../../src/engine/domain/nodes/node-lease.js';

const TEN_MINUTES = ['--node-heartbeat-timeout-seconds', '600'];

let a: TestEngine;
let b: ChildNode | undefined;
/** B's data dir, made when the tests run (a file skipped without PostgreSQL leaves nothing behind). */
let bDir = '';
const db = () => a.engine.context.db;

const sessionRow = (id: string) =>
  db().selectFrom('browser_sessions').select(['deleted_at', 'ended_reason', 'ended_by', 'node_id']).where('id', '=', id).executeTakeFirstOrThrow();
const poolOwner = async (id: string) => (await db().selectFrom('browser_pools').select('node_id').where('id', '=', id).executeTakeFirstOrThrow()).node_id;

/** The backend pid holding node `nodeId`'s lease, if any. */
async function leaseHolder(nodeId: string): Promise<number | undefined> {
  const r = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 2
    and classid = ${NODE_LEASE_CLASS}::oid and objid = ${leaseObjId(leaseKeyOf(nodeId))}::oid`.execute(db());
  return r.rows[0]?.pid;
}

/** Waits for `n` more of A's sweeps (each at least a second after the last one ended). */
async function sweepsOfA(n: number): Promise<void> {
  const sweeper = nodesOf(a).sweeper;
  const from = sweeper.sweeps;
  await pollUntil(
    `${n} sweeps of node A`,
    async () => sweeper.sweeps,
    (s) => s >= from + n,
  );
}

/** A session of B, created through B, and a pool of size 1 B has filled. */
async function sessionAndPoolOn(node: ChildNode, poolName: string): Promise<{ sessionId: string; cdpUrl: string; poolId: string }> {
  const s = await node.client.browsers.create({ headless: true, timeout_seconds: 600 });
  // No refill waits for the rate: a pool still filled on the wrong node would show at once.
  const pool = await node.client.browserPools.create({ name: poolName, size: 1, headless: true, fill_rate_per_minute: MAX_FILL_RATE });
  await pollUntil(
    `${poolName} filled on B`,
    () => a.client.browserPools.retrieve(pool.id),
    (p) => p.available_count === 1,
  );
  return { sessionId: s.session_id, cdpUrl: s.cdp_ws_url, poolId: pool.id };
}

/** Playwright through A reaches the browser of a session B runs. */
async function expectServedThroughA(cdpUrl: string): Promise<void> {
  const browser = await chromium.connectOverCDP(via(a, cdpUrl));
  try {
    const page = browser.contexts()[0]?.pages()[0] ?? (await browser.contexts()[0].newPage());
    expect(await page.evaluate('6 * 7')).toBe(42);
  } finally {
    await browser.close();
  }
}

async function statusOf(p: Promise<unknown>): Promise<{ status?: number; code?: string; message?: string }> {
  try {
    await p;
    return { status: 200 };
  } catch (err) {
    const e = err as { status?: number; error?: { code?: string; message?: string } };
    return { status: e.status, code: e.error?.code, message: e.error?.message };
  }
}

describe.skipIf(!PG_URL)(`a node lost by its database lease, with heartbeats timing out after 10 minutes${PG_SKIP_REASON}`, () => {
  let first: { sessionId: string; cdpUrl: string; poolId: string };
  let second: { sessionId: string; cdpUrl: string; poolId: string };

  beforeAll(async () => {
    bDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-node-b-'));
    a = await startTestEngine({ nodeHeartbeatTimeoutSeconds: 600 });
    b = await spawnNode(a, bDir, TEN_MINUTES);
    first = await sessionAndPoolOn(b, 'pool-on-b');
  });

  afterAll(async () => {
    if (b && !b.killed) await b.stop();
    // A killed node's leftovers (browser processes, session disks, cgroups) are what its next
    // start on the same data dir recovers: start it once more, here, and stop it cleanly.
    else if (a) await (await startTestEngine({ dataDir: bDir, databaseUrl: a.engine.config.databaseUrl }, undefined, { adminKey: a.adminKey })).stop();
    await a?.stop();
    expect(processesWith(bDir)).toEqual([]);
    fs.rmSync(bDir, { recursive: true, force: true });
  });

  it('does not declare a frozen node lost while its lease is held, and it serves again once it runs', async () => {
    const node = b!;
    process.kill(node.pid, 'SIGSTOP');
    try {
      await sweepsOfA(5);
      expect(await nodesOf(a).registry.stateOf(node.nodeId)).toMatchObject({ state: 'alive' });
      expect((await sessionRow(first.sessionId)).deleted_at).toBeNull();
      expect(await poolOwner(first.poolId)).toBe(node.nodeId);
    } finally {
      process.kill(node.pid, 'SIGCONT');
    }
    await expectServedThroughA(first.cdpUrl);
  });

  it('declares a node cut off from the database past the grace lost; back, it gives up what was taken and serves again', async () => {
    const node = b!;
    const holder = await pollUntil(
      `B's lease`,
      () => leaseHolder(node.nodeId),
      (pid) => pid !== undefined,
    );
    process.kill(node.pid, 'SIGSTOP');
    try {
      // Its connection to the database ends (the server ends it, as a network partition would):
      // frozen, it cannot take its lease back before A gives up on it.
      await sql`select pg_terminate_backend(${holder})`.execute(db());
      const row = await pollUntil(
        "A to end the cut-off node's session",
        () => sessionRow(first.sessionId),
        (r) => r.deleted_at !== null,
      );
      expect(row).toMatchObject({ ended_reason: 'node_lost', ended_by: `node:${node.nodeId}` });
      await pollUntil(
        'A to adopt its pool',
        () => poolOwner(first.poolId),
        (owner) => owner === nodeIdOf(a),
      );
    } finally {
      process.kill(node.pid, 'SIGCONT');
    }
    // Back: its lease again (a new connection), and the browser of the session A ended ended here too.
    await pollUntil(
      `B's lease taken again`,
      () => leaseHolder(node.nodeId),
      (pid) => pid !== undefined && pid !== holder,
    );
    await pollUntil(
      'B to end the browser of its session A ended',
      async () => processesWith(path.join(bDir, 'sessions', first.sessionId)),
      (pids) => pids.length === 0,
    );
    await pollUntil(
      'A to see B alive again',
      () => nodesOf(a).registry.stateOf(node.nodeId),
      (s) => s.state === 'alive',
    );
    // It serves again (a session, a pool it fills, through A too) and no longer fills the pool A took over.
    second = await sessionAndPoolOn(node, 'pool-on-b-again');
    await expectServedThroughA(second.cdpUrl);
    const adoptedOnB = await db()
      .selectFrom('browser_sessions')
      .select('id')
      .where('pool_id', '=', first.poolId)
      .where('node_id', '=', node.nodeId)
      .where('deleted_at', 'is', null)
      .execute();
    expect(adoptedOnB).toEqual([]);
    await a.client.browserPools.delete(first.poolId, { force: true });
  });

  it('ends a killed node’s sessions as node_lost and moves its pool to a live node', async () => {
    const node = b!;
    const killedAt = Date.now();
    process.kill(node.pid, 'SIGKILL');
    await node.exited;
    const row = await pollUntil(
      "the killed node's session to end",
      () => sessionRow(second.sessionId),
      (r) => r.deleted_at !== null,
    );
    console.log(`node B killed: its session ended ${Date.now() - killedAt} ms later`);
    expect(row).toMatchObject({ ended_reason: 'node_lost', ended_by: `node:${node.nodeId}` });
    await pollUntil(
      "A to adopt the killed node's pool",
      () => poolOwner(second.poolId),
      (owner) => owner === nodeIdOf(a),
    );
    console.log(`node B killed: its pool moved ${Date.now() - killedAt} ms later`);
    expect(await statusOf(a.client.browsers.fs.readFile(second.sessionId, { path: '/x' }))).toMatchObject({ status: 404, code: 'session_ended' });
    const got = await a.client.browserPools.acquire(second.poolId, { acquire_timeout_seconds: 60 });
    expect((a.engine.services.sessions as SessionManager).get(got!.session_id)).toBeDefined();
    await a.client.browserPools.delete(second.poolId, { force: true });
  });
});
