/**
 * The path sandbox on its own, against real temp directories: `..`, relative paths, NUL bytes,
 * drive letters, symlinked parents and leaves pointing outside, dangling links, and the
 * descriptor check of `openInsideRoot`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openInsideRoot, resolveSessionPath } from '../../../src/engine/runtime/session-fs/resolve-session-path.js';
import { ApiError } from '../../../src/engine/http/api-error.js';

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-sandbox-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await fsp.mkdir(path.join(root, 'dir/sub'), { recursive: true });
  await fsp.mkdir(outside);
  await fsp.writeFile(path.join(outside, 'secret.txt'), 'secret');
  await fsp.writeFile(path.join(root, 'dir/file.txt'), 'inside');
  await fsp.symlink(outside, path.join(root, 'out-dir'));
  await fsp.symlink(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
  await fsp.symlink('/etc/passwd', path.join(root, 'abs-link'));
  await fsp.symlink('dir/file.txt', path.join(root, 'in-link'));
  await fsp.symlink(path.join(outside, 'not-yet'), path.join(root, 'dangling-out'));
});
afterAll(() => fsp.rm(base, { recursive: true, force: true }));

async function failure(p: unknown, follow = true): Promise<ApiError> {
  try {
    await resolveSessionPath(root, p, { followLeaf: follow });
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error(`expected ${String(p)} to be refused`);
}

describe('resolveSessionPath', () => {
  it('maps absolute client paths into the root', async () => {
    expect((await resolveSessionPath(root, '/')).host).toBe(root);
    const r = await resolveSessionPath(root, '/dir//file.txt/');
    expect(r).toMatchObject({ virtual: '/dir/file.txt', host: path.join(root, 'dir/file.txt'), exists: true });
    expect((await resolveSessionPath(root, '/new/deep/x')).exists).toBe(false);
  });

  it('refuses malformed paths with 400', async () => {
    for (const p of ['relative/x', '', '/a/../../etc/passwd', '/..', '/a/\0b', 'C:\\Windows', 'c:/x', '\\\\server\\share', 5, undefined]) {
      expect((await failure(p)).status, String(p)).toBe(400);
    }
  });

  it('refuses symlinks leading outside with 403, for parents and leaves', async () => {
    for (const p of ['/out-dir/secret.txt', '/out-dir', '/out-file', '/abs-link', '/dangling-out', '/out-dir/new/file']) {
      const err = await failure(p);
      expect(err.status, p).toBe(403);
      expect(err.code).toBe('path_outside_session');
    }
    // Not following the leaf (delete/move of the link itself) is fine: the link is inside.
    expect((await resolveSessionPath(root, '/out-file', { followLeaf: false })).host).toBe(path.join(root, 'out-file'));
    // …but a parent is always followed.
    expect((await failure('/out-dir/secret.txt', false)).status).toBe(403);
  });

  it('follows symlinks that stay inside', async () => {
    expect((await resolveSessionPath(root, '/in-link', { followLeaf: true })).host).toBe(path.join(root, 'dir/file.txt'));
  });

  it('openInsideRoot refuses to open a symlink leaf (O_NOFOLLOW)', async () => {
    const p = await resolveSessionPath(root, '/abs-link', { followLeaf: false });
    await expect(openInsideRoot(p, fs.constants.O_RDONLY)).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
