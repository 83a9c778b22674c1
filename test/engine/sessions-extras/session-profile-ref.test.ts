/**
 * The Session object's `profile` carries the profile's own metadata (created_at, name,
 * updated_at, last_used_at) — the same for a running session, an ended one (retrieve with
 * include_deleted, list with status=deleted) and a listed one — and only its id once the
 * profile itself has been deleted (its timestamps are no longer known).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { processesWith, sessionDirsLeft } from '../../helpers/chromium-web.js';

let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine();
});

afterAll(async () => {
  await t.stop();
  expect(processesWith(t.dataDir)).toEqual([]);
  expect(sessionDirsLeft(t.dataDir)).toEqual([]);
});

describe('Session object profile', () => {
  it('reports the profile timestamps for running and ended sessions, and only the id after the profile is deleted', async () => {
    const created = await t.client.profiles.create({ name: 'ref-times' });
    // The session must be created at a later instant than the profile for the check to mean anything.
    await new Promise((r) => setTimeout(r, 20));
    const s = await t.client.browsers.create({ headless: true, profile: { name: 'ref-times' } });
    expect(s.created_at).not.toBe(created.created_at);
    const profile = await t.client.profiles.retrieve(created.id);
    const expected = { id: profile.id, name: 'ref-times', created_at: profile.created_at, updated_at: profile.updated_at, last_used_at: profile.last_used_at };
    expect(profile.last_used_at).toBeDefined();

    expect(s.profile).toEqual(expected);
    expect((await t.client.browsers.retrieve(s.session_id)).profile).toEqual(expected);
    const running = (await t.client.browsers.list()).getPaginatedItems().find((x) => x.session_id === s.session_id);
    expect(running?.profile).toEqual(expected);

    await t.client.browsers.deleteByID(s.session_id);
    const after = await t.client.profiles.retrieve(created.id);
    const expectedAfter = { id: after.id, name: 'ref-times', created_at: after.created_at, updated_at: after.updated_at, last_used_at: after.last_used_at };
    const ended = await t.client.browsers.retrieve(s.session_id, { include_deleted: true });
    expect(ended.deleted_at).toBeDefined();
    expect(ended.profile).toEqual(expectedAfter);
    expect(ended.profile?.created_at).toBe(created.created_at);
    const listed = (await t.client.browsers.list({ status: 'deleted' })).getPaginatedItems().find((x) => x.session_id === s.session_id);
    expect(listed?.profile).toEqual(expectedAfter);

    await t.client.profiles.delete(created.id);
    expect((await t.client.browsers.retrieve(s.session_id, { include_deleted: true })).profile).toEqual({ id: created.id });
  });
});
