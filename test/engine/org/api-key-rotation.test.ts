/**
 * Key lifetimes and rotation under an injected clock: expiry, the rotation grace period
 * (default 7 days, 0 = at once), the successor's lifetime (reused or given), and that a
 * rotation never lengthens the rotated key's life.
 *
 * @database key rows, expiry and rotation are queries and transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { DAY, expectApiError, expectErrorResponse, manualClock } from './org-fixtures.js';

const clock = manualClock('2026-03-01T12:00:00.000Z');
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ clock });
});
afterAll(() => t?.stop());

const works = async (key: string) => (await t.api('/org/projects', { headers: { authorization: `Bearer ${key}` } })).status;

describe('API key expiry and rotation', () => {
  it('expires a key after days_to_expire, but still lists it as active until deleted', async () => {
    const k = await t.client.apiKeys.create({ name: 'short', days_to_expire: 1 });
    expect(k.expires_at).toBe('2026-03-02T12:00:00.000Z');
    expect(await works(k.key)).toBe(200);
    clock.advance(DAY);
    expect(await works(k.key)).toBe(401);
    const active = [];
    for await (const x of t.client.apiKeys.list({ status: 'active', name: 'short' })) active.push(x.id);
    expect(active).toEqual([k.id]);
  });

  it('rotates with the default 7-day grace period: both keys work until it ends', async () => {
    const old = await t.client.apiKeys.create({ name: 'rotating', days_to_expire: 30 });
    const project = await t.client.projects.create({ name: 'rotation-project' });
    const scopedOld = await t.client.apiKeys.create({ name: 'rotating-scoped', project_id: project.id });
    const rotatedAt = clock.now().getTime();
    const next = await t.client.apiKeys.rotate(old.id);
    expect(next.id).not.toBe(old.id);
    expect(next).toMatchObject({ name: 'rotating', project_id: null, deleted_at: null });
    // Omitted days_to_expire reuses the old key's lifetime, counted from the rotation.
    expect(Date.parse(next.expires_at!)).toBe(rotatedAt + 30 * DAY);
    expect((await t.client.apiKeys.retrieve(old.id)).expires_at).toBe(new Date(rotatedAt + 7 * DAY).toISOString());

    const scopedNext = await t.client.apiKeys.rotate(scopedOld.id, {});
    expect(scopedNext).toMatchObject({ name: 'rotating-scoped', project_id: project.id, project_name: 'rotation-project', expires_at: null });

    expect(await works(old.key)).toBe(200);
    clock.advance(7 * DAY - 1);
    expect(await works(old.key)).toBe(200);
    expect(await works(next.key)).toBe(200);
    clock.advance(1);
    expect(await works(old.key)).toBe(401);
    expect(await works(scopedOld.key)).toBe(401);
    expect(await works(next.key)).toBe(200);
    expect(await works(scopedNext.key)).toBe(200);
  });

  it('expire_in_days 0 ends the rotated key at once; days_to_expire sets the successor lifetime', async () => {
    const old = await t.client.apiKeys.create({ name: 'instant', days_to_expire: null });
    expect(await works(old.key)).toBe(200); // cached now; rotation must evict it
    const next = await t.client.apiKeys.rotate(old.id, { expire_in_days: 0, days_to_expire: 2 });
    expect(await works(old.key)).toBe(401);
    expect(Date.parse(next.expires_at!) - clock.now().getTime()).toBe(2 * DAY);
    // A rotated key can be rotated again and the lifetime it was issued with carries over.
    const third = await t.client.apiKeys.rotate(next.id, { expire_in_days: 1 });
    expect(Date.parse(third.expires_at!) - clock.now().getTime()).toBe(2 * DAY);
    const forever = await t.client.apiKeys.rotate(third.id, { days_to_expire: null });
    expect(forever.expires_at).toBeNull();
  });

  it('never lengthens the rotated key: an earlier expiry is kept', async () => {
    const old = await t.client.apiKeys.create({ name: 'expiring-soon', days_to_expire: 1 });
    await t.client.apiKeys.rotate(old.id, { expire_in_days: 30 });
    expect((await t.client.apiKeys.retrieve(old.id)).expires_at).toBe(old.expires_at);
  });

  it('a key may rotate itself; rotating a deleted key is 404', async () => {
    const self = await t.client.apiKeys.create({ name: 'self-rotating' });
    const next = await t.clientWith({ apiKey: self.key }).apiKeys.rotate(self.id, { expire_in_days: 0 });
    expect(await works(self.key)).toBe(401);
    expect(await works(next.key)).toBe(200);
    const gone = await t.client.apiKeys.create({ name: 'gone' });
    await t.client.apiKeys.delete(gone.id);
    await expectApiError(t.client.apiKeys.rotate(gone.id), 404);
  });

  it('accepts an empty body and rejects bad rotation parameters', async () => {
    const k = await t.client.apiKeys.create({ name: 'rotate-input' });
    const empty = await t.api(`/org/api_keys/${k.id}/rotate`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(200);
    const next = (await empty.json()) as { id: string };
    for (const body of [
      { expire_in_days: -1 },
      { expire_in_days: 3651 },
      { expire_in_days: '1' },
      { days_to_expire: 0 },
      { days_to_expire: 3651 },
      { days_to_expire: 2.5 },
      { other: 1, days_to_expire: 0 }, // an unknown field is ignored (newer clients), a wrong known one is not
    ]) {
      await expectErrorResponse(await t.api(`/org/api_keys/${next.id}/rotate`, { method: 'POST', json: body }), 400);
    }
    // Nothing was rotated by the rejected calls.
    expect((await t.client.apiKeys.retrieve(next.id)).expires_at).toBeNull();
  });
});
