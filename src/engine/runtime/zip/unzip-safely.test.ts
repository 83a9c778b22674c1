/**
 * The shared zip walker behind session uploads and deployments, on real archives (yazl) and a
 * real temp directory: entries land through the target, symlink entries are skipped, the entry
 * and uncompressed-byte limits answer 413 while streaming, and a non-zip is a 400 that creates
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { unzipSafely, type UnzipTarget } from './unzip-safely.js';

let dir: string;

beforeAll(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'unzip-safely-'));
});
afterAll(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

async function zipFile(name: string, build: (z: yazl.ZipFile) => void): Promise<string> {
  const z = new yazl.ZipFile();
  build(z);
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  const file = path.join(dir, name);
  await fsp.writeFile(file, Buffer.concat(chunks));
  return file;
}

/** Writes into `root` and records what it was asked for. */
function dirTarget(root: string): UnzipTarget & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async directory(name) {
      calls.push(`dir ${name}`);
      await fsp.mkdir(path.join(root, name), { recursive: true });
    },
    async file(name, mode) {
      calls.push(`file ${name} ${mode.toString(8)}`);
      await fsp.mkdir(path.dirname(path.join(root, name)), { recursive: true });
      return fs.createWriteStream(path.join(root, name), { mode });
    },
  };
}

async function failure(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('unzipSafely', () => {
  it('extracts files and directories with their modes and skips symlink entries', async () => {
    const file = await zipFile('ok.zip', (z) => {
      z.addBuffer(Buffer.from('alpha'), 'a.txt', { mode: 0o100600 });
      z.addBuffer(Buffer.from('beta'), 'sub/b.sh', { mode: 0o100755 });
      z.addEmptyDirectory('empty');
      z.addBuffer(Buffer.from('/etc/passwd'), 'link', { mode: 0o120777 });
    });
    const out = path.join(dir, 'ok');
    const target = dirTarget(out);
    let prepared = false;
    const r = await unzipSafely(file, target, { field: 'zip_file', prepare: async () => void (prepared = true) });
    expect(prepared).toBe(true);
    expect(r).toEqual({ files: 2, directories: 1, skipped: 1, bytes: 9 });
    expect(target.calls).toEqual(['file a.txt 600', 'file sub/b.sh 755', 'dir empty']);
    expect(await fsp.readFile(path.join(out, 'sub/b.sh'), 'utf8')).toBe('beta');
    expect(fs.existsSync(path.join(out, 'link'))).toBe(false);
  });

  it('answers 413 once the entry count passes the limit', async () => {
    const file = await zipFile('many.zip', (z) => {
      for (let i = 0; i < 5; i++) z.addBuffer(Buffer.from('x'), `f${i}.txt`);
    });
    const target = dirTarget(path.join(dir, 'many'));
    const err = await failure(unzipSafely(file, target, { field: 'file', limits: { entries: 3, bytes: 1e9 } }));
    expect([err.status, err.code]).toEqual([413, 'archive_too_large']);
    expect(target.calls).toHaveLength(3);
  });

  it('answers 413 while streaming once the uncompressed bytes pass the limit (header sizes are not trusted)', async () => {
    // Highly compressible: small archive, large content.
    const file = await zipFile('bomb.zip', (z) => z.addBuffer(Buffer.alloc(1024 * 1024), 'zeros.bin'));
    const err = await failure(unzipSafely(file, dirTarget(path.join(dir, 'bomb')), { field: 'file', limits: { entries: 10, bytes: 64 * 1024 } }));
    expect([err.status, err.code]).toEqual([413, 'archive_too_large']);
    expect((await fsp.stat(path.join(dir, 'bomb/zeros.bin'))).size).toBeLessThanOrEqual(64 * 1024);
  });

  it('refuses a file that is not a zip with 400 before preparing anything', async () => {
    const file = path.join(dir, 'not.zip');
    await fsp.writeFile(file, 'not a zip');
    let prepared = false;
    const err = await failure(unzipSafely(file, dirTarget(path.join(dir, 'none')), { field: 'zip_file', prepare: async () => void (prepared = true) }));
    expect([err.status, err.code]).toEqual([400, 'invalid_zip']);
    expect(err.message).toMatch(/^zip_file is not a valid zip archive/);
    expect(prepared).toBe(false);
  });
});
