/**
 * Region placement across nodes (issue 15 item 2): node A serves `us-east` (the default), nodes
 * B and C serve `eu-west`. A create at A asking for `eu-west` runs on a node of that region —
 * the least loaded one — and is used through A afterwards (GET, CDP); it is audited once, where
 * it ran. A region no live node serves (one whose only node has stopped) is 422
 * `region_unavailable`; no region (or A's own) runs
 * on A; an already forwarded create is never sent on; a pool create is placed the same way.
 * Raw HTTP: the installed SDK (0.84) has no `region`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { PG_SKIP_REASON, PG_URL, flushAudits, joinNode, nodeIdOf, startTestEngine, via, type TestEngine } from './two-nodes.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';

type Json = Record<string, unknown>;

let a: TestEngine;
let b: TestEngine;
let c: TestEngine;
const created: string[] = [];

const sessionsOf = (t: TestEngine) => t.engine.services.sessions as SessionManager;

async function post(t: TestEngine, path: string, json: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await t.api(path, { method: 'POST', json, headers });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Which of the three nodes runs session `id` in memory. */
function runner(id: string): string[] {
  return [a, b, c].filter((t) => sessionsOf(t).get(id)).map(nodeIdOf);
}

describe.skipIf(!PG_URL)(`a create asking for a region is placed on a node of that region${PG_SKIP_REASON}`, () => {
  beforeAll(async () => {
    a = await startTestEngine(); // us-east, the default
    b = await joinNode(a, { region: 'eu-west' });
    c = await joinNode(a, { region: 'eu-west' });
  });
  afterAll(async () => {
    for (const id of created) await a.api(`/browsers/${id}`, { method: 'DELETE' });
    await c?.stop();
    await b?.stop();
    await a?.stop();
  });

  it('records each node’s region in the registry', async () => {
    const rows = await a.engine.context.db.selectFrom('engine_nodes').select(['id', 'region']).execute();
    expect(new Map(rows.map((r) => [r.id, r.region]))).toEqual(
      new Map([
        [nodeIdOf(a), 'us-east'],
        [nodeIdOf(b), 'eu-west'],
        [nodeIdOf(c), 'eu-west'],
      ]),
    );
  });

  it('runs a create at A for eu-west on an eu-west node, usable through A, audited once', async () => {
    const agent = `region-placement-${Date.now()}`;
    const r = await post(a, '/browsers', { headless: true, region: 'eu-west', name: 'in-eu' }, { 'user-agent': agent });
    expect(r.status).toBe(200);
    const id = r.body.session_id as string;
    created.push(id);
    expect(r.body.region).toBe('eu-west');
    const on = runner(id);
    expect(on).toHaveLength(1);
    expect([nodeIdOf(b), nodeIdOf(c)]).toContain(on[0]);
    const row = await a.engine.context.db.selectFrom('browser_sessions').select('node_id').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.node_id).toBe(on[0]);

    // A following GET through A is forwarded to the node that runs it.
    const got = await a.api(`/browsers/${id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ session_id: id, region: 'eu-west', name: 'in-eu' });
    // Its browser answers over CDP through A's address.
    const browser = await chromium.connectOverCDP(via(a, r.body.cdp_ws_url as string));
    try {
      const page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
      await page.goto('data:text/html,<title>placed-in-eu</title>');
      expect(await page.title()).toBe('placed-in-eu');
    } finally {
      await browser.close();
    }

    // The owner authenticated and audited the create; A, which forwarded it, did not.
    await flushAudits(a, b, c);
    const audits = await a.engine.context.db.selectFrom('audit_logs').select(['method', 'route', 'status']).where('user_agent', '=', agent).execute();
    expect(audits).toEqual([{ method: 'POST', route: '/browsers', status: 200 }]);
  });

  it('places the next eu-west create on the least loaded eu-west node', async () => {
    const first = created[0];
    const busy = runner(first)[0];
    const r = await post(a, '/browsers', { headless: true, region: 'eu-west' });
    expect(r.status).toBe(200);
    created.push(r.body.session_id as string);
    const on = runner(r.body.session_id as string);
    expect(on).toHaveLength(1);
    expect(on[0]).not.toBe(busy);
    expect([nodeIdOf(b), nodeIdOf(c)]).toContain(on[0]);
  });

  it('answers 422 region_unavailable for a region no live node serves (a stopped node of it does not count)', async () => {
    const d = await joinNode(a, { region: 'ap-southeast' });
    await d.stop(); // its row stays, marked stopped, its heartbeat still fresh
    const before = (await a.engine.context.db.selectFrom('browser_sessions').select('id').execute()).length;
    const r = await post(a, '/browsers', { headless: true, region: 'ap-southeast' });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('region_unavailable');
    expect((await a.engine.context.db.selectFrom('browser_sessions').select('id').execute()).length).toBe(before);
  });

  it('runs a create without a region, or with A’s own, on A', async () => {
    for (const body of [{ headless: true }, { headless: true, region: 'us-east' }]) {
      const r = await post(a, '/browsers', body);
      expect(r.status).toBe(200);
      created.push(r.body.session_id as string);
      expect(r.body.region).toBe('us-east');
      expect(runner(r.body.session_id as string)).toEqual([nodeIdOf(a)]);
    }
  });

  it('places a create at B for us-east on A', async () => {
    const r = await post(b, '/browsers', { headless: true, region: 'us-east' });
    expect(r.status).toBe(200);
    created.push(r.body.session_id as string);
    expect(runner(r.body.session_id as string)).toEqual([nodeIdOf(a)]);
  });

  it('never sends an already forwarded create on (it is answered where it landed)', async () => {
    const r = await post(a, '/browsers', { headless: true, region: 'eu-west' }, { 'x-browserdeck-forwarded-by': 'some-node' });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('region_unavailable');
  });

  it('places a pool create the same way: the pool is run by an eu-west node', async () => {
    const r = await post(a, '/browser_pools', { size: 1, region: 'eu-west', name: 'eu-pool', headless: true });
    expect(r.status).toBe(200);
    expect(r.body.region).toBe('eu-west');
    const row = await a.engine.context.db
      .selectFrom('browser_pools')
      .select('node_id')
      .where('id', '=', r.body.id as string)
      .executeTakeFirstOrThrow();
    expect([nodeIdOf(b), nodeIdOf(c)]).toContain(row.node_id);
    const bad = await post(a, '/browser_pools', { size: 1, region: 'ap-southeast' });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('region_unavailable');
    // Deleted through A (forwarded to its node), so its browser ends with the test.
    const del = await a.api(`/browser_pools/${r.body.id as string}`, { method: 'DELETE', json: { force: true } });
    expect(del.status).toBe(204);
  });
});
