/**
 * A console sign-in is one row in the shared store, so it counts on every node of that store
 * and a sign-out on one node ends it on all of them (a node that had already seen the token
 * must not keep accepting it from its memory).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, PG_URL, joinNode, startTestEngine, type TestEngine } from './two-nodes.js';

const H = { 'x-browserdeck-console': '1' };

describe.skipIf(!PG_URL)(`console sign-in across nodes${PG_SKIP_REASON}`, () => {
  let a: TestEngine;
  let b: TestEngine;
  beforeAll(async () => {
    a = await startTestEngine();
    b = await joinNode(a);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('is accepted by both nodes and ends on both at a sign-out on one', async () => {
    const res = await fetch(a.url + '/console/session', {
      method: 'POST',
      headers: { ...H, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: a.adminKey }),
    });
    expect(res.status).toBe(200);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0];
    const projectsOn = (node: TestEngine) => fetch(node.url + '/org/projects', { headers: { ...H, cookie } });
    expect((await projectsOn(a)).status).toBe(200);
    expect((await projectsOn(b)).status).toBe(200);

    const out = await fetch(a.url + '/console/session', { method: 'DELETE', headers: { ...H, cookie } });
    expect(out.status).toBe(204);
    expect((await projectsOn(a)).status).toBe(401);
    expect((await projectsOn(b)).status).toBe(401);
  });
});
