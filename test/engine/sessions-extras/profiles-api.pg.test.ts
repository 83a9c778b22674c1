import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { NotFoundError, ConflictError, BadRequestError } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

describe('profiles API', () => {
  it('creates, gets by id and name, renames, lists and deletes profiles', async () => {
    const a = await t.client.profiles.create({ name: 'shop-login' });
    expect(a).toMatchObject({ id: expect.any(String), name: 'shop-login', created_at: expect.any(String) });
    const anon = await t.client.profiles.create({});
    expect(anon.name).toBeNull();

    expect((await t.client.profiles.retrieve('shop-login')).id).toBe(a.id);
    expect((await t.client.profiles.retrieve(a.id)).name).toBe('shop-login');

    const renamed = await t.client.profiles.update('shop-login', { name: 'shop.login_2' });
    expect(renamed).toMatchObject({ id: a.id, name: 'shop.login_2' });
    await expect(t.client.profiles.retrieve('shop-login')).rejects.toBeInstanceOf(NotFoundError);

    const byName = await t.client.profiles.list({ name: 'shop.login_2' });
    expect(byName.getPaginatedItems().map((p) => p.id)).toEqual([a.id]);
    const byQuery = await t.client.profiles.list({ query: 'LOGIN' });
    expect(byQuery.getPaginatedItems().map((p) => p.id)).toEqual([a.id]);

    const all: string[] = [];
    for await (const p of t.client.profiles.list({ limit: 1 })) all.push(p.id);
    expect(all).toEqual(expect.arrayContaining([a.id, anon.id]));

    await t.client.profiles.delete(a.id);
    await t.client.profiles.delete(anon.id);
    await expect(t.client.profiles.retrieve(a.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects bad and duplicate names with the Error object', async () => {
    for (const name of ['', 'has space', 'slash/no', 'x'.repeat(256), 'ü']) {
      const err = await t.client.profiles.create({ name }).catch((e) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    await t.client.profiles.create({ name: 'dup' });
    const err = await t.client.profiles.create({ name: 'dup' }).catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    const other = await t.client.profiles.create({ name: 'other' });
    await expect(t.client.profiles.update(other.id, { name: 'dup' })).rejects.toBeInstanceOf(ConflictError);
    const res = await t.api('/profiles/dup/download?format=zip');
    expect(res.status).toBe(400);
  });

  it('keeps profiles per project and counts them as project usage', async () => {
    const proj = await t.client.projects.create({ name: 'profiles-proj' });
    const scoped = t.clientWith({ projectID: proj.id });
    const p = await scoped.profiles.create({ name: 'in-project' });
    await expect(t.client.profiles.retrieve('in-project')).rejects.toBeInstanceOf(NotFoundError);
    await expect(t.client.projects.delete(proj.id)).rejects.toBeInstanceOf(ConflictError);
    await scoped.profiles.delete(p.id);
    await t.client.projects.delete(proj.id);
  });

  it('downloads an empty profile as valid tar and tar.zst archives', async () => {
    const p = await t.client.profiles.create({ name: 'empty' });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-prof-'));
    try {
      const tarRes = await t.client.profiles.download(p.id, { format: 'tar' });
      await fs.writeFile(path.join(dir, 'p.tar'), Buffer.from(await tarRes.arrayBuffer()));
      expect(execFileSync('tar', ['-tf', path.join(dir, 'p.tar')]).toString()).toBe('');
      const zstRes = await t.client.profiles.download('empty'); // default format: tar.zst
      await fs.writeFile(path.join(dir, 'p.tar.zst'), Buffer.from(await zstRes.arrayBuffer()));
      execFileSync('zstd', ['-q', '-t', path.join(dir, 'p.tar.zst')]); // throws unless a valid zstd frame
      expect(execFileSync('tar', ['--zstd', '-tf', path.join(dir, 'p.tar.zst')]).toString()).toBe('');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
