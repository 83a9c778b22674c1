import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, NotFoundError } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { descendants } from '../../helpers/proc.js';
import { readStorage, startTestPages, writeStorage, type TestPages } from './test-pages.js';

let t: TestEngine;
let pages: TestPages;
beforeAll(async () => {
  t = await startTestEngine();
  pages = await startTestPages();
});
afterAll(async () => {
  await t?.stop();
  await pages?.close();
});

const read = (cdp: string) => readStorage(pages, cdp);

describe('profiles with sessions', () => {
  it('saves cookies, localStorage and IndexedDB at session end and restores them into the next session', async () => {
    const profile = await t.client.profiles.create({ name: 'roundtrip' });
    const s1 = await t.client.browsers.create({ headless: true, profile: { name: 'roundtrip', save_changes: true } });
    expect(s1.profile).toMatchObject({ id: profile.id });
    await writeStorage(pages, s1.cdp_ws_url, 'v1');
    // In use: cannot be deleted.
    await expect(t.client.profiles.delete('roundtrip')).rejects.toBeInstanceOf(ConflictError);
    await t.client.browsers.deleteByID(s1.session_id);

    const saved = await t.client.profiles.retrieve(profile.id);
    expect(saved.last_used_at).toBeDefined();
    expect(Date.parse(saved.updated_at!)).toBeGreaterThan(Date.parse(profile.updated_at!) - 1);

    const s2 = await t.client.browsers.create({ headless: true, profile: { id: profile.id } });
    expect(await read(s2.cdp_ws_url)).toEqual({ cookie: 'v1', local: 'v1', idb: 'v1' });
    // Without save_changes, what s2 changes is not written back.
    await writeStorage(pages, s2.cdp_ws_url, 'v2');
    await t.client.browsers.deleteByID(s2.session_id);

    const s3 = await t.client.browsers.create({ headless: true, profile: { name: 'roundtrip' } });
    const plain = await t.client.browsers.create({ headless: true });
    expect(await read(s3.cdp_ws_url)).toEqual({ cookie: 'v1', local: 'v1', idb: 'v1' });
    // A session without a profile shares nothing.
    expect(await read(plain.cdp_ws_url)).toEqual({ cookie: null, local: null, idb: null });
    await t.client.browsers.deleteByID(s3.session_id);
    await t.client.browsers.deleteByID(plain.session_id);

    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-prof-'));
    try {
      for (const format of ['tar', 'tar.zst'] as const) {
        const res = await t.client.profiles.download('roundtrip', { format });
        const file = path.join(dir, `p.${format}`);
        await fs.writeFile(file, Buffer.from(await res.arrayBuffer()));
        const listing = execFileSync('tar', [...(format === 'tar.zst' ? ['--zstd'] : []), '-tf', file])
          .toString()
          .split('\n');
        expect(listing.some((l) => /^Default\/(Network\/)?Cookies$/.test(l))).toBe(true);
        expect(listing.some((l) => l.startsWith('Default/Local Storage/'))).toBe(true);
        expect(listing.some((l) => l.startsWith('Default/IndexedDB/'))).toBe(true);
        // Only the profile parts: no caches or history.
        expect(listing.some((l) => /Cache|History/.test(l))).toBe(false);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    await t.client.profiles.delete('roundtrip');
  });

  it('refuses an unknown profile with 404 and a selector naming two profiles with 400', async () => {
    const err = await t.client.browsers.create({ headless: true, profile: { name: 'does-not-exist' } }).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.error.message).toMatch(/does-not-exist/);
    const p = await t.client.profiles.create({ name: 'two' });
    const res = await t.api('/browsers', { method: 'POST', json: { headless: true, profile: { id: p.id, name: 'two' } } });
    expect(res.status).toBe(400);
    expect((await t.client.browsers.list()).getPaginatedItems()).toHaveLength(0);
  });

  it('saves a browser that takes seconds to close (a loaded machine) instead of dropping its state', async () => {
    await t.client.profiles.create({ name: 'slow-close' });
    const s = await t.client.browsers.create({ headless: true, profile: { name: 'slow-close', save_changes: true } });
    await writeStorage(pages, s.cdp_ws_url, 'kept');
    // Every process of the browser stopped for 3 s: Browser.close is answered only after that,
    // past the 2 s an unsaved session's browser gets before it is killed.
    const stopped = descendants(t.engine.services.sessions.get(s.session_id)!.browser!.pid);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    const resume = setTimeout(() => stopped.forEach((pid) => process.kill(pid, 'SIGCONT')), 3_000);
    try {
      await t.client.browsers.deleteByID(s.session_id);
    } finally {
      clearTimeout(resume);
      for (const pid of stopped) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          /* exited */
        }
      }
    }
    const next = await t.client.browsers.create({ headless: true, profile: { name: 'slow-close' } });
    expect(await read(next.cdp_ws_url)).toEqual({ cookie: 'kept', local: 'kept', idb: 'kept' });
    await t.client.browsers.deleteByID(next.session_id);
  });
});
