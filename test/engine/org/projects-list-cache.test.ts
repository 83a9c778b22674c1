/**
 * Project listings are served from a short in-memory cache (the hottest org read); every write
 * on this engine must show in the very next listing, including writes racing a listing.
 *
 * @database writes racing listings are transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(async () => {
  await t?.stop();
});

const names = async () => (await t.client.projects.list({ limit: 100 })).getPaginatedItems().map((p) => p.name);

describe('project listing cache', () => {
  it('shows creates, renames, archives and deletes at once', async () => {
    expect(await names()).toEqual(['default']);
    const p = await t.client.projects.create({ name: 'cached-a' });
    expect(await names()).toEqual(['default', 'cached-a']);
    await t.client.projects.update(p.id, { name: 'cached-b' });
    expect(await names()).toEqual(['default', 'cached-b']);
    await t.client.projects.update(p.id, { status: 'archived' });
    expect((await t.client.projects.list({ limit: 100 })).getPaginatedItems().find((x) => x.id === p.id)?.status).toBe('archived');
    await t.client.projects.delete(p.id);
    expect(await names()).toEqual(['default']);
  });

  it('never keeps a listing that raced a write', async () => {
    for (let i = 0; i < 10; i++) {
      const listing = names();
      const created = t.client.projects.create({ name: `race-${i}` });
      await Promise.all([listing, created]);
      expect(await names()).toContain(`race-${i}`);
    }
  });
});
