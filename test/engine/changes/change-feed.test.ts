/**
 * The change feed (GET /changes): an SDK client's changes reach a follower as upsert/delete
 * frames, scoped like the API (a project-scoped key sees its project only, nothing
 * org-level), credentials other than API keys are refused, and the stream opens with hello.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { followChanges, type FeedReader } from '../../helpers/change-feed.js';
import { createOtherOrg } from '../org/org-fixtures.js';

describe('change feed', () => {
  let te: TestEngine;
  const feeds: FeedReader[] = [];
  beforeAll(async () => {
    te = await startTestEngine();
  });
  afterAll(async () => {
    for (const f of feeds) f.close();
    await te?.stop();
  });
  const follow = async (key: string) => {
    const f = await followChanges(te.url, key);
    feeds.push(f);
    await f.next((e) => e.type === 'hello');
    return f;
  };

  it('refuses callers without an API key with an Error object', async () => {
    const none = await fetch(`${te.url}/changes`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'unauthorized', message: expect.any(String) });
    const bad = await fetch(`${te.url}/changes`, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
  });

  it("shows an org-wide key a session the SDK creates, renames and deletes; a project B key sees none of project A's changes", async () => {
    const a = await te.client.projects.create({ name: 'feed-a' });
    const b = await te.client.projects.create({ name: 'feed-b' });
    const bKey = (await te.client.apiKeys.create({ name: 'feed-b-key', project_id: b.id })).key!;
    const org = await follow(te.adminKey);
    const scoped = await follow(bKey);

    const inA = te.clientWith({ projectID: a.id });
    const session = await inA.browsers.create({ headless: true, timeout_seconds: 120 });
    expect(await org.next((e) => e.resource === 'session' && e.id === session.session_id)).toEqual({
      type: 'upsert',
      resource: 'session',
      id: session.session_id,
      project_id: a.id,
    });

    // A session JWT is no credential for the feed (it is confined to its own session's routes).
    const jwt = new URL(session.cdp_ws_url).searchParams.get('jwt')!;
    expect((await fetch(`${te.url}/changes?jwt=${jwt}`)).status).toBe(401);
    expect((await fetch(`${te.url}/changes`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(401);

    await inA.browsers.update(session.session_id, { name: 'renamed-by-sdk' });
    expect(await org.next((e) => e.resource === 'session')).toEqual({ type: 'upsert', resource: 'session', id: session.session_id, project_id: a.id });
    await inA.browsers.deleteByID(session.session_id);
    expect(await org.next((e) => e.resource === 'session')).toEqual({ type: 'delete', resource: 'session', id: session.session_id, project_id: a.id });

    // Org-level changes and project A's: the scoped key must not hear them.
    const profileA = await inA.profiles.create({ name: 'feed-profile-a' });
    const orgKey = await te.client.apiKeys.create({ name: 'feed-org-key' });
    await te.client.projects.update(a.id, { name: 'feed-a-renamed' });
    expect(await org.next((e) => e.resource === 'api_key')).toMatchObject({ type: 'upsert', id: orgKey.id });
    expect((await org.next((e) => e.resource === 'project')).id).toBe(a.id);
    // Then one change in B: once the scoped key has it, everything before it was delivered too.
    const profileB = await te.clientWith({ projectID: b.id }).profiles.create({ name: 'feed-profile-b' });
    expect(await scoped.next((e) => e.type !== 'heartbeat')).toEqual({ type: 'upsert', resource: 'profile', id: profileB.id, project_id: b.id });
    expect(await org.next((e) => e.resource === 'profile' && e.id === profileB.id)).toBeTruthy();
    expect(org.seen.some((e) => e.id === profileA.id)).toBe(true);
    expect(scoped.seen.filter((e) => e.type !== 'hello' && e.type !== 'heartbeat')).toEqual([
      { type: 'upsert', resource: 'profile', id: profileB.id, project_id: b.id },
    ]);
  });

  it("never shows an org-wide key of another organization this one's changes", async () => {
    const other = await createOtherOrg(te, 'feed-other-org');
    const otherFeed = await follow(other.key);
    // Org-level and project changes in the first organization.
    await te.client.apiKeys.create({ name: 'feed-first-org-key' });
    await te.client.organization.limits.update({ default_project_max_concurrent_sessions: 2 });
    const firstProfile = await te.client.profiles.create({ name: 'feed-first-org-profile' });
    // Then one change in the other organization: once its key has it, everything before was delivered.
    const otherProfile = await other.client.profiles.create({ name: 'feed-other-org-profile' });
    expect(await otherFeed.next((e) => e.type !== 'heartbeat')).toEqual({
      type: 'upsert',
      resource: 'profile',
      id: otherProfile.id,
      project_id: other.projectId,
    });
    expect(otherFeed.seen.some((e) => e.id === firstProfile.id || e.resource === 'api_key' || e.resource === 'org_limits')).toBe(false);
  });

  it('announces a pool, the session an SDK client acquires from it, its release and the pool deletion', async () => {
    const feed = await follow(te.adminKey);
    const pool = await te.client.browserPools.create({ size: 1, headless: true, name: 'feed-pool' });
    expect(await feed.next((e) => e.resource === 'pool')).toMatchObject({ type: 'upsert', id: pool.id });
    const got = await te.client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 60 });
    // The pooled browser's own create came first; the acquire is announced after it.
    await feed.next((e) => e.resource === 'session' && e.id === got.session_id && e.type === 'upsert');
    expect(await feed.next((e) => e.resource === 'session' && e.id === got.session_id)).toMatchObject({ type: 'upsert' });
    await te.client.browserPools.release(pool.id, { session_id: got.session_id, reuse: false });
    expect(await feed.next((e) => e.resource === 'session' && e.id === got.session_id)).toMatchObject({ type: 'delete' });
    await te.client.browserPools.delete(pool.id, { force: true });
    expect(await feed.next((e) => e.resource === 'pool' && e.id === pool.id)).toMatchObject({ type: 'delete' });
  });
});
