/**
 * `/browsers/{id}/fs/*` through the official client against a real session: every endpoint's
 * happy path, the sandbox against `..`, relative paths and symlink tricks (including a symlink
 * planted inside the session root pointing at the engine's data dir), clear 4xx errors, JWT
 * access via the session's `base_url`, zip in and out, watches, and browser downloads landing
 * in the session filesystem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fsp from 'node:fs/promises';
import path from 'node:path';
import yazl from 'yazl';
import yauzl from 'yauzl';
import { toFile } from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let te: TestEngine;
let id: string;
let baseUrl: string;
let jwt: string;
let root: string;

beforeAll(async () => {
  te = await startTestEngine();
  const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  id = s.session_id;
  baseUrl = s.base_url!;
  jwt = new URL(s.cdp_ws_url).searchParams.get('jwt')!;
  root = (te.engine.services.sessions as { get(id: string): { dirs: { root: string } } }).get(id).dirs.root;
});

afterAll(async () => {
  await te?.stop();
});

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

describe('session filesystem', () => {
  it('writes, reads, lists and describes files', async () => {
    await te.client.browsers.fs.writeFile(id, 'hello world', { path: '/notes/a.txt' });
    const res = await te.client.browsers.fs.readFile(id, { path: '/notes/a.txt' });
    expect(res.headers.get('content-type')).toContain('application/octet-stream');
    expect(await res.text()).toBe('hello world');
    const info = await te.client.browsers.fs.fileInfo(id, { path: '/notes/a.txt' });
    expect(info).toMatchObject({ name: 'a.txt', path: '/notes/a.txt', is_dir: false, mode: '-rw-r--r--', size_bytes: 11 });
    expect(Date.parse(info.mod_time)).toBeGreaterThan(0);
    await te.client.browsers.fs.writeFile(id, 'x', { path: '/notes/b.sh', mode: '755' });
    const list = await te.client.browsers.fs.listFiles(id, { path: '/notes' });
    expect(list.map((f) => [f.name, f.mode])).toEqual([
      ['a.txt', '-rw-r--r--'],
      ['b.sh', '-rwxr-xr-x'],
    ]);
    const top = await te.client.browsers.fs.listFiles(id, { path: '/' });
    expect(top.find((f) => f.name === 'notes')).toMatchObject({ is_dir: true, mode: 'drwxr-xr-x', size_bytes: 0, path: '/notes' });
    // The file really is inside the session root on the host.
    expect(await fsp.readFile(path.join(root, 'notes/a.txt'), 'utf8')).toBe('hello world');
  });

  it('creates, moves, chmods and deletes', async () => {
    await te.client.browsers.fs.createDirectory(id, { path: '/d1/d2/d3' });
    expect((await te.client.browsers.fs.fileInfo(id, { path: '/d1/d2/d3' })).mode).toBe('drwxr-xr-x');
    await te.client.browsers.fs.createDirectory(id, { path: '/d1/private', mode: '700' });
    expect((await te.client.browsers.fs.fileInfo(id, { path: '/d1/private' })).mode).toBe('drwx------');
    await te.client.browsers.fs.createDirectory(id, { path: '/d1/d2/d3' }); // mkdir -p: idempotent
    await te.client.browsers.fs.writeFile(id, 'm', { path: '/d1/file' });
    await te.client.browsers.fs.move(id, { src_path: '/d1/file', dest_path: '/d1/d2/moved' });
    expect(await (await te.client.browsers.fs.readFile(id, { path: '/d1/d2/moved' })).text()).toBe('m');
    await te.client.browsers.fs.setFilePermissions(id, { path: '/d1/d2/moved', mode: '600' });
    expect((await te.client.browsers.fs.fileInfo(id, { path: '/d1/d2/moved' })).mode).toBe('-rw-------');
    await te.client.browsers.fs.setFilePermissions(id, { path: '/d1/d2/moved', mode: '640', owner: '0', group: 'root' });
    expect(await status(te.client.browsers.fs.setFilePermissions(id, { path: '/d1/d2/moved', mode: '640', owner: 'no-such-user-xyz' }))).toBe(400);
    await te.client.browsers.fs.deleteFile(id, { path: '/d1/d2/moved' });
    expect(await status(te.client.browsers.fs.fileInfo(id, { path: '/d1/d2/moved' }))).toBe(404);
    await te.client.browsers.fs.deleteDirectory(id, { path: '/d1' });
    expect(await status(te.client.browsers.fs.listFiles(id, { path: '/d1' }))).toBe(404);
  });

  it('answers clear 4xx errors, never 500', async () => {
    const fs = te.client.browsers.fs;
    await fs.writeFile(id, 'f', { path: '/errs/file' });
    const cases: Array<[() => Promise<unknown>, number]> = [
      [() => fs.readFile(id, { path: '/errs/missing' }), 404],
      [() => fs.readFile(id, { path: '/errs' }), 400],
      [() => fs.readFile(id, { path: 'relative.txt' }), 400],
      [() => fs.listFiles(id, { path: '/errs/file' }), 400],
      [() => fs.createDirectory(id, { path: '/errs/file' }), 409],
      [() => fs.createDirectory(id, { path: '/errs/x', mode: 'rwx' }), 400],
      [() => fs.writeFile(id, 'x', { path: '/errs/y', mode: '999' }), 400],
      [() => fs.writeFile(id, 'x', { path: '/errs' }), 400],
      [() => fs.deleteFile(id, { path: '/errs' }), 400],
      [() => fs.deleteDirectory(id, { path: '/errs/file' }), 400],
      [() => fs.deleteDirectory(id, { path: '/' }), 400],
      [() => fs.deleteFile(id, { path: '/errs/missing' }), 404],
      [() => fs.move(id, { src_path: '/errs/missing', dest_path: '/errs/z' }), 404],
      [() => fs.move(id, { src_path: '/errs/file', dest_path: '/errs/file' }), 409],
      [() => fs.move(id, { src_path: '/errs/file', dest_path: '/nope/dir/z' }), 404],
      [() => fs.setFilePermissions(id, { path: '/errs/file', mode: '8' }), 400],
      // No setuid/setgid files made by the engine.
      [() => fs.setFilePermissions(id, { path: '/errs/file', mode: '4755' }), 400],
      [() => fs.setFilePermissions(id, { path: '/errs/file', mode: '2755' }), 400],
      [() => fs.writeFile(id, 'x', { path: '/errs/suid', mode: '6755' }), 400],
      [() => fs.createDirectory(id, { path: '/errs/sgid-dir', mode: '2775' }), 400],
      [() => fs.fileInfo(id, { path: '/errs/file\u0000x' }), 400],
      [() => fs.readFile('no-such-session', { path: '/errs/file' }), 404],
    ];
    for (const [i, [call, expected]] of cases.entries()) expect(await status(call()), `case ${i}`).toBe(expected);
    expect((await fs.fileInfo(id, { path: '/errs/file' })).mode).toMatch(/^-[rwx-]{9}$/);
    await expect(fs.fileInfo(id, { path: '/errs/suid' })).rejects.toMatchObject({ status: 404 });
    // Sticky stays allowed (a shared /tmp-like directory); Go's FileMode spelling.
    await fs.createDirectory(id, { path: '/errs/shared', mode: '1777' });
    expect((await fs.fileInfo(id, { path: '/errs/shared' })).mode).toBe('dtrwxrwxrwx');
    const res = await te.api(`/browsers/${id}/fs/read_file`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_request', details: [expect.objectContaining({ message: expect.stringContaining('path') })] });
  });

  it('cannot escape the root with .., symlinks or symlinked parents', async () => {
    const secret = path.join(te.dataDir, 'admin-api-key');
    const dataBefore = (await fsp.readdir(te.dataDir)).sort();
    // A session process could plant these. Their targets mean what they mean inside the
    // session's jail (the session root is `/` there), so they lead to the session's own paths.
    await fsp.symlink(secret, path.join(root, 'key-link'));
    await fsp.symlink(te.dataDir, path.join(root, 'data-link'));
    await fsp.symlink('/etc', path.join(root, 'etc-link'));
    const fs = te.client.browsers.fs;
    for (const p of ['/../../etc/passwd', '/notes/../../admin-api-key', '/..']) expect(await status(fs.readFile(id, { path: p })), p).toBe(400);
    for (const p of ['/key-link', '/data-link/admin-api-key', '/etc-link/passwd']) {
      expect(await status(fs.readFile(id, { path: p })), p).toBe(404);
      expect(await status(fs.fileInfo(id, { path: p })), p).toBe(404);
    }
    expect(await status(fs.listFiles(id, { path: '/data-link' }))).toBe(404);
    expect(await status(fs.setFilePermissions(id, { path: '/key-link', mode: '777' }))).toBe(404);
    expect(await status(fs.downloadDirZip(id, { path: '/data-link' }))).toBe(404);
    expect(await status(fs.watch.start(id, { path: '/data-link' }))).toBe(404);
    expect(await status(fs.move(id, { src_path: '/notes/a.txt', dest_path: '/data-link/stolen' }))).toBe(404);
    // Writes through the links create the session's own files at the links' targets.
    await fs.writeFile(id, 'pwned', { path: '/key-link' });
    await fs.writeFile(id, 'pwned', { path: '/data-link/new-file' });
    await fs.createDirectory(id, { path: '/data-link/newdir' });
    expect(await fsp.readFile(path.join(root, secret), 'utf8')).toBe('pwned');
    expect(await fsp.readFile(path.join(root, te.dataDir, 'new-file'), 'utf8')).toBe('pwned');
    expect((await fsp.readdir(te.dataDir)).sort()).toEqual(dataBefore);
    // Deleting the link itself is allowed and leaves the target alone.
    await fs.deleteFile(id, { path: '/key-link' });
    expect((await fsp.stat(secret)).mode & 0o777).toBe(0o600);
    expect(await fsp.readFile(secret, 'utf8')).toContain('bdk_');
    expect((await fsp.readdir(te.dataDir)).includes('new-file')).toBe(false);
    // Listing shows links as links (mode L…), without following them.
    const listed = await fs.listFiles(id, { path: '/' });
    expect(listed.find((f) => f.name === 'data-link')?.mode).toMatch(/^L/);
  });

  it('works with the session JWT on base_url, without a bearer key', async () => {
    await te.client.browsers.fs.writeFile(id, 'via jwt', { path: '/jwt.txt' });
    const ok = await fetch(`${baseUrl}/fs/read_file?path=${encodeURIComponent('/jwt.txt')}&jwt=${jwt}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('via jwt');
    const put = await fetch(`${baseUrl}/fs/write_file?path=/jwt2.txt&jwt=${jwt}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: 'put via jwt',
    });
    expect(put.status).toBeLessThan(300);
    expect(await fsp.readFile(path.join(root, 'jwt2.txt'), 'utf8')).toBe('put via jwt');
    const bad = await fetch(`${baseUrl}/fs/read_file?path=/jwt.txt&jwt=${jwt}x`);
    expect(bad.status).toBe(401);
  });

  it('uploads files (multipart, any part order) and zips, and downloads a directory as zip', async () => {
    const fs = te.client.browsers.fs;
    await fs.upload(id, {
      files: [
        { dest_path: '/up/one.txt', file: await toFile(Buffer.from('one'), 'one.txt') },
        { file: await toFile(Buffer.from('two'), 'two.txt'), dest_path: '/up/sub/two.txt' },
      ],
    });
    expect(await (await fs.readFile(id, { path: '/up/one.txt' })).text()).toBe('one');
    expect(await (await fs.readFile(id, { path: '/up/sub/two.txt' })).text()).toBe('two');
    expect(await status(fs.upload(id, { files: [{ dest_path: '../x', file: await toFile(Buffer.from('x'), 'x') }] }))).toBe(400);

    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('alpha'), 'a.txt');
    zip.addBuffer(Buffer.from('beta'), 'dir/b.txt', { mode: 0o100755 });
    zip.addEmptyDirectory('empty');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    await fs.uploadZip(id, { dest_path: '/unzipped', zip_file: await toFile(Buffer.concat(chunks), 'z.zip') });
    expect(await (await fs.readFile(id, { path: '/unzipped/dir/b.txt' })).text()).toBe('beta');
    expect((await fs.fileInfo(id, { path: '/unzipped/dir/b.txt' })).mode).toBe('-rwxr-xr-x');
    expect((await fs.fileInfo(id, { path: '/unzipped/empty' })).is_dir).toBe(true);
    expect(await status(fs.uploadZip(id, { dest_path: '/bad', zip_file: await toFile(Buffer.from('not a zip'), 'z.zip') }))).toBe(400);
    expect(await status(fs.uploadZip(id, { dest_path: 'relative', zip_file: await toFile(Buffer.concat(chunks), 'z.zip') }))).toBe(400);

    const res = await fs.downloadDirZip(id, { path: '/unzipped' });
    expect(res.headers.get('content-type')).toBe('application/zip');
    const entries = await readZip(Buffer.from(await res.arrayBuffer()));
    expect(entries).toEqual({ 'a.txt': 'alpha', 'dir/': '', 'dir/b.txt': 'beta', 'empty/': '' });
  });

  it('extracts zips zip-slip safe (entries with .. or symlinks never leave the destination)', async () => {
    // yazl refuses to write `..` names, so patch the name bytes of a built archive.
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('evil'), 'xx/xx/evil.txt');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    const evil = Buffer.from(Buffer.concat(chunks).toString('latin1').replaceAll('xx/xx/evil.txt', '../../evil.txt'), 'latin1');
    const code = await status(te.client.browsers.fs.uploadZip(id, { dest_path: '/slip', zip_file: await toFile(evil, 'evil.zip') }));
    expect(code).toBe(400);
    expect(await fsp.stat(path.join(root, '..', 'evil.txt')).catch(() => null)).toBeNull();
    expect(await fsp.stat(path.join(path.dirname(root), '..', 'evil.txt')).catch(() => null)).toBeNull();
  });

  it('watches a directory: CREATE, WRITE, RENAME, DELETE over SSE, stop, and unknown ids', async () => {
    const fs = te.client.browsers.fs;
    await fs.createDirectory(id, { path: '/watched' });
    const { watch_id } = await fs.watch.start(id, { path: '/watched', recursive: true });
    expect(watch_id).toBeTruthy();
    const stream = await fs.watch.events(watch_id!, { id });
    const seen: Array<{ type: string; path: string; is_dir?: boolean; name?: string }> = [];
    const reader = (async () => {
      for await (const e of stream) {
        seen.push(e);
        if (e.type === 'DELETE' && e.path === '/watched/renamed.txt') break;
      }
    })();
    await fs.writeFile(id, 'one', { path: '/watched/f.txt' });
    await waitFor(() => seen.some((e) => e.type === 'CREATE' && e.path === '/watched/f.txt'));
    await fsp.appendFile(path.join(root, 'watched/f.txt'), 'more');
    await waitFor(() => seen.some((e) => e.type === 'WRITE' && e.path === '/watched/f.txt'));
    await fs.move(id, { src_path: '/watched/f.txt', dest_path: '/watched/renamed.txt' });
    await waitFor(() => seen.some((e) => e.type === 'CREATE' && e.path === '/watched/renamed.txt'));
    await fs.createDirectory(id, { path: '/watched/sub' });
    await fs.deleteFile(id, { path: '/watched/renamed.txt' });
    await reader;
    expect(seen).toContainEqual({ type: 'RENAME', path: '/watched/f.txt', is_dir: false, name: 'f.txt' });
    expect(seen).toContainEqual({ type: 'CREATE', path: '/watched/sub', is_dir: true, name: 'sub' });
    expect(seen).toContainEqual({ type: 'DELETE', path: '/watched/renamed.txt', is_dir: false, name: 'renamed.txt' });
    expect(seen.some((e) => e.type === 'DELETE' && e.path === '/watched/f.txt')).toBe(false);
    await fs.watch.stop(watch_id!, { id });
    expect(await status(fs.watch.stop(watch_id!, { id }))).toBe(404);
    expect(await status(fs.watch.events('no-such-watch', { id }))).toBe(404);
    expect(await status(fs.watch.start(id, { path: '/missing-dir' }))).toBe(404);
    expect(await status(fs.watch.start(id, { path: '/jwt.txt' }))).toBe(400);
  });
});

async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

async function readZip(buf: Buffer): Promise<Record<string, string>> {
  const zip = await yauzl.fromBufferPromise(buf, { lazyEntries: true });
  const out: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) {
      out[entry.fileName] = '';
      continue;
    }
    const s = await zip.openReadStreamPromise(entry);
    const parts: Buffer[] = [];
    for await (const c of s) parts.push(c as Buffer);
    out[entry.fileName] = Buffer.concat(parts).toString();
  }
  return out;
}
