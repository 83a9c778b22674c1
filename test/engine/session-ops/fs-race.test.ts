/**
 * The race hammer of issue 11: a process inside the session swaps a directory for a symlink to
 * a host directory in a tight loop while a project-scoped tenant calls every fs operation on
 * paths under it, 500 times. Whatever the interleaving, nothing outside the session may be read,
 * listed, written, created, moved, chmodded or deleted, and no call may answer 5xx. The engine
 * before the handle walk (realpath check, then act on the path) lost this within a few dozen
 * calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let te: TestEngine;
let tenant: Kernel;
let outside: string;
const marker = `HOST-SECRET-${randomUUID()}`;

/** What the host dir holds, by relative path: type, mode and content. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const key = rel ? `${rel}/${name}` : name;
      out[key] = `${st.isDirectory() ? 'd' : 'f'} ${(st.mode & 0o7777).toString(8)} ${st.isFile() ? fs.readFileSync(p, 'utf8') : ''}`;
      if (st.isDirectory()) walk(p, key);
    }
  };
  walk(dir, '');
  return out;
}

beforeAll(async () => {
  te = await startTestEngine();
  const project = await te.client.projects.create({ name: 'racer' });
  const key = await te.client.apiKeys.create({ name: 'racer-key', project_id: project.id });
  tenant = te.clientWith({ apiKey: key.key! });
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-race-host-'));
  fs.writeFileSync(path.join(outside, 'host-only.txt'), marker, { mode: 0o600 });
  fs.writeFileSync(path.join(outside, 'host-victim.txt'), marker, { mode: 0o600 });
  fs.mkdirSync(path.join(outside, 'host-subdir'), { mode: 0o700 });
  fs.writeFileSync(path.join(outside, 'host-subdir', 'keep.txt'), marker, { mode: 0o600 });
  fs.chmodSync(outside, 0o700);
}, 60_000);

afterAll(async () => {
  await te?.stop();
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('the fs API against a racing session process', () => {
  it('touches nothing outside the session in 500 calls while a directory flips to a host symlink', async () => {
    const before = snapshot(outside);
    const s = await tenant.browsers.create({ headless: true, timeout_seconds: 300 });
    const id = s.session_id;
    const fsApi = tenant.browsers.fs;
    await fsApi.createDirectory(id, { path: '/race/d' });
    await fsApi.writeFile(id, 'inside', { path: '/race/d/inside.txt' });
    // perl is in every Debian (perl-base is essential) and loops without forking.
    const swapper = await tenant.browsers.process.spawn(id, {
      command: 'perl',
      args: [
        '-e',
        `while (1) { rename('/race/d', '/race/d.real'); symlink('${outside}', '/race/d'); for (1..200) {} unlink('/race/d'); rename('/race/d.real', '/race/d'); }`,
      ],
    });

    const statuses: number[] = [];
    const leaks: string[] = [];
    const call = async (name: string, fn: () => Promise<unknown>) => {
      try {
        const out = await fn();
        statuses.push(200);
        const text = out instanceof Response ? Buffer.from(await out.arrayBuffer()).toString('latin1') : JSON.stringify(out ?? '');
        if (text.includes(marker) || /host-only|host-victim|host-subdir/.test(text)) leaks.push(`${name}: ${text.slice(0, 200)}`);
      } catch (err) {
        const status = (err as { status?: number }).status;
        if (typeof status !== 'number') throw err;
        statuses.push(status);
      }
    };
    const ops: Array<(i: number) => [string, () => Promise<unknown>]> = [
      () => ['read_file', () => fsApi.readFile(id, { path: '/race/d/host-only.txt' })],
      () => ['file_info', () => fsApi.fileInfo(id, { path: '/race/d/host-only.txt' })],
      () => ['list_files', () => fsApi.listFiles(id, { path: '/race/d' })],
      () => ['download_dir_zip', () => fsApi.downloadDirZip(id, { path: '/race/d' })],
      (i) => ['write_file', () => fsApi.writeFile(id, 'written by the race', { path: `/race/d/w-${i}.txt` })],
      (i) => ['create_directory', () => fsApi.createDirectory(id, { path: `/race/d/mk-${i}/deep` })],
      () => ['set_file_permissions', () => fsApi.setFilePermissions(id, { path: '/race/d/host-only.txt', mode: '666' })],
      () => ['delete_file', () => fsApi.deleteFile(id, { path: '/race/d/host-victim.txt' })],
      () => ['delete_directory', () => fsApi.deleteDirectory(id, { path: '/race/d/host-subdir' })],
      (i) => ['move', () => fsApi.move(id, { src_path: '/race/d/host-only.txt', dest_path: `/race/moved-${i}.txt` })],
    ];
    try {
      // Four callers at a time, so the engine's steps interleave with each other too.
      for (let i = 0; i < 500; i += 4) {
        await Promise.all(
          [0, 1, 2, 3].map((k) => {
            const [name, fn] = ops[(i + k) % ops.length](i + k);
            return call(name, fn);
          }),
        );
      }
    } finally {
      await tenant.browsers.process.kill(swapper.process_id!, { id, signal: 'KILL' }).catch(() => {});
    }

    expect(statuses).toHaveLength(500);
    expect(
      statuses.filter((c) => c >= 500),
      'no 5xx',
    ).toEqual([]);
    expect(leaks).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
    // The calls did reach the session's own directory: they were not all refused.
    expect(statuses.filter((c) => c === 200).length).toBeGreaterThan(50);
    await tenant.browsers.deleteByID(id);
  }, 180_000);
});
