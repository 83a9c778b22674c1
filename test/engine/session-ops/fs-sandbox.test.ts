/**
 * The handle walk of the session filesystem on its own, against real temp directories: client
 * path syntax (`..`, relative paths, NUL bytes, drive letters), symlinks resolved inside the root
 * the way the session's jail sees them (absolute targets start at the root, `..` stops there),
 * link loops, and operations that stay on the pinned inode when the name is swapped afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { withRoot } from '../../../src/engine/runtime/session-fs/rooted-fs.js';
import { ApiError } from '../../../src/engine/http/api-error.js';
import { setPermissions, writeFileFromStream } from '../../../src/engine/runtime/session-fs/session-files.js';

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-sandbox-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await fsp.mkdir(path.join(root, 'dir/sub'), { recursive: true });
  await fsp.mkdir(path.join(root, 'etc'));
  await fsp.writeFile(path.join(root, 'etc/passwd'), 'the session passwd');
  await fsp.mkdir(outside);
  await fsp.writeFile(path.join(outside, 'secret.txt'), 'secret');
  await fsp.writeFile(path.join(root, 'dir/file.txt'), 'inside');
  await fsp.symlink(outside, path.join(root, 'out-dir'));
  await fsp.symlink(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
  await fsp.symlink('/etc/passwd', path.join(root, 'abs-link'));
  await fsp.symlink('dir/file.txt', path.join(root, 'in-link'));
  await fsp.symlink('../../../../../dir/file.txt', path.join(root, 'dir/sub/climb'));
  await fsp.symlink('loop-b', path.join(root, 'loop-a'));
  await fsp.symlink('loop-a', path.join(root, 'loop-b'));
});
afterAll(() => fsp.rm(base, { recursive: true, force: true }));

const resolve = (p: unknown, followLeaf = true) => withRoot(root, (r) => r.resolve(p, { followLeaf }));

async function failure(p: unknown): Promise<ApiError> {
  try {
    await resolve(p);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error(`expected ${String(p)} to be refused`);
}

describe('the handle walk (rooted-fs)', () => {
  it('maps absolute client paths into the root', async () => {
    expect((await resolve('/')).virtual).toBe('/');
    const r = await resolve('/dir//file.txt/');
    expect(r.virtual).toBe('/dir/file.txt');
    expect(r.leaf?.stat.isFile()).toBe(true);
    expect((await resolve('/dir/new-file')).leaf).toBeUndefined();
    expect((await failure('/new/deep/x')).status).toBe(404);
    expect((await failure('/dir/file.txt/x')).code).toBe('not_a_directory');
  });

  it('refuses malformed paths with 400', async () => {
    for (const p of ['relative/x', '', '/a/../../etc/passwd', '/..', '/a/\0b', 'C:\\Windows', 'c:/x', '\\\\server\\share', 5, undefined]) {
      expect((await failure(p)).status, String(p)).toBe(400);
    }
  });

  it('resolves symlinks inside the root, as the jail sees them, never on the host', async () => {
    // Host-absolute targets name paths inside the session, which do not exist there.
    for (const p of ['/out-dir/secret.txt', '/out-dir', '/out-dir/new/file', '/out-file']) expect((await failure(p)).status, p).toBe(404);
    // `/etc/passwd` is the session's own.
    const abs = await resolve('/abs-link');
    expect(abs.virtual).toBe('/etc/passwd');
    expect(await withRoot(root, async (r) => (await r.openForRead('/abs-link')).handle.readFile('utf8'))).toBe('the session passwd');
    // `..` stops at the root.
    expect((await resolve('/dir/sub/climb')).virtual).toBe('/dir/file.txt');
    expect((await resolve('/in-link')).virtual).toBe('/dir/file.txt');
    // Not following the leaf acts on the link itself.
    const link = await resolve('/out-file', false);
    expect(link.leaf?.stat.isSymbolicLink()).toBe(true);
    expect((await failure('/loop-a')).code).toBe('too_many_links');
  });

  it('writes through a link land inside the root, and the host file is untouched', async () => {
    await writeFileFromStream(root, '/out-file', 'written', 0o644, false);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(fs.readFileSync(path.join(root, outside, 'secret.txt'), 'utf8')).toBe('written');
    await setPermissions(root, '/out-file', 0o600);
    expect(fs.statSync(path.join(outside, 'secret.txt')).mode & 0o777).not.toBe(0o600);
    expect(fs.statSync(path.join(root, outside, 'secret.txt')).mode & 0o777).toBe(0o600);
  });

  it('a pinned leaf stays that inode when its name is swapped for a link afterwards', async () => {
    if (process.platform !== 'linux') return;
    const victim = path.join(root, 'dir/victim.txt');
    await fsp.writeFile(victim, 'victim');
    await withRoot(root, async (r) => {
      const p = await r.resolve('/dir/victim.txt', { followLeaf: true });
      await fsp.rm(victim);
      await fsp.symlink(path.join(outside, 'secret.txt'), victim);
      await fsp.chmod(p.leaf!.path, 0o640);
      const h = await r.reopen(p.leaf!, fs.constants.O_RDONLY);
      expect(await h.readFile('utf8')).toBe('victim');
      await h.close();
    });
    expect(fs.statSync(path.join(outside, 'secret.txt')).mode & 0o777).not.toBe(0o640);
  });

  it('a pinned directory stays that directory when it is swapped for a link to the host', async () => {
    if (process.platform !== 'linux') return;
    const dir = path.join(root, 'swap');
    await fsp.mkdir(dir);
    await withRoot(root, async (r) => {
      const p = await r.resolve('/swap', { followLeaf: true });
      await fsp.rename(dir, path.join(root, 'swapped-away'));
      await fsp.symlink(outside, dir);
      await fsp.writeFile(r.at(p.leaf!, 'planted'), 'x');
    });
    expect(fs.existsSync(path.join(outside, 'planted'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'swapped-away/planted'), 'utf8')).toBe('x');
  });
});
