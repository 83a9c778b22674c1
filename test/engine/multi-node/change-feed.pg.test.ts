/**
 * The change feed across nodes: a console following node B hears changes made through node A
 * (PostgreSQL LISTEN/NOTIFY), once each, still scoped to what its key may read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP_REASON, PG_URL, joinNode, startTestEngine, type TestEngine } from './two-nodes.js';
import { followChanges, type FeedReader } from '../../helpers/change-feed.js';

describe.skipIf(!PG_URL)(`change feed across nodes${PG_SKIP_REASON}`, () => {
  let a: TestEngine;
  let b: TestEngine;
  const feeds: FeedReader[] = [];
  beforeAll(async () => {
    a = await startTestEngine();
    b = await joinNode(a);
  });
  afterAll(async () => {
    for (const f of feeds) f.close();
    await b?.stop();
    await a?.stop();
  });

  it('delivers a change made on node A to a follower of node B, and not one from another project to a scoped key', async () => {
    const p1 = await a.client.projects.create({ name: 'relay-1' });
    const p2 = await a.client.projects.create({ name: 'relay-2' });
    const key2 = (await a.client.apiKeys.create({ name: 'relay-2-key', project_id: p2.id })).key!;
    const onB = await followChanges(b.url, a.adminKey);
    const scopedOnB = await followChanges(b.url, key2);
    feeds.push(onB, scopedOnB);
    await onB.next((e) => e.type === 'hello');
    await scopedOnB.next((e) => e.type === 'hello');

    const inP1 = await a.clientWith({ projectID: p1.id }).profiles.create({ name: 'made-on-a' });
    expect(await onB.next((e) => e.resource === 'profile')).toEqual({ type: 'upsert', resource: 'profile', id: inP1.id, project_id: p1.id });
    const inP2 = await a.clientWith({ projectID: p2.id }).profiles.create({ name: 'made-on-a-2' });
    await a.clientWith({ projectID: p2.id }).profiles.delete(inP2.id);
    expect(await scopedOnB.next((e) => e.resource === 'profile')).toEqual({ type: 'upsert', resource: 'profile', id: inP2.id, project_id: p2.id });
    expect(await scopedOnB.next((e) => e.resource === 'profile')).toEqual({ type: 'delete', resource: 'profile', id: inP2.id, project_id: p2.id });
    expect(await onB.next((e) => e.type === 'delete')).toMatchObject({ id: inP2.id });
    // Each change once: the relay does not echo a node's own changes back to it.
    expect(onB.seen.filter((e) => e.id === inP1.id)).toHaveLength(1);
    expect(scopedOnB.seen.some((e) => e.id === inP1.id)).toBe(false);
  });
});
