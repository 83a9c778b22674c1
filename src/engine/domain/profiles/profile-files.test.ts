import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyProfileParts, copyTree } from './profile-files.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'profile-files-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A user-data-dir as a session's browser (or whoever writes into it) left it. */
function write(rel: string, content: string): void {
  const p = path.join(dir, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

describe('copyProfileParts', () => {
  it('copies the profile parts and nothing else', async () => {
    write('ud/Default/Preferences', '{"p":1}');
    write('ud/Default/Local Storage/leveldb/000003.log', 'ls');
    write('ud/Default/Local Storage/leveldb/LOCK', '');
    write('ud/Default/Cache/data_0', 'cache');
    const n = await copyProfileParts(path.join(dir, 'ud'), path.join(dir, 'out'));
    expect(n).toBe(2);
    expect(fs.readFileSync(path.join(dir, 'out/Default/Preferences'), 'utf8')).toBe('{"p":1}');
    expect(fs.readFileSync(path.join(dir, 'out/Default/Local Storage/leveldb/000003.log'), 'utf8')).toBe('ls');
    expect(fs.existsSync(path.join(dir, 'out/Default/Local Storage/leveldb/LOCK'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'out/Default/Cache'))).toBe(false);
  });

  it('follows no link a session planted: not as a part, inside one, or on the way to one', async () => {
    // What a link could reach: another browser's profile on the same host.
    write('other/Default/Cookies', 'secret cookies');
    write('other/Default/Preferences', 'secret prefs');
    write('other/Local State', 'secret state');
    // The whole `Default` directory is a link: lstat of `Default/Cookies` alone would follow it.
    fs.mkdirSync(path.join(dir, 'ud1'));
    fs.symlinkSync(path.join(dir, 'other/Default'), path.join(dir, 'ud1/Default'));
    fs.symlinkSync(path.join(dir, 'other/Local State'), path.join(dir, 'ud1/Local State'));
    expect(await copyProfileParts(path.join(dir, 'ud1'), path.join(dir, 'out1'))).toBe(0);
    expect(fs.existsSync(path.join(dir, 'out1/Default'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'out1/Local State'))).toBe(false);
    // A link inside a part directory.
    write('ud2/Default/IndexedDB/site/000001.log', 'mine');
    fs.symlinkSync(path.join(dir, 'other/Default/Cookies'), path.join(dir, 'ud2/Default/IndexedDB/site/stolen'));
    expect(await copyProfileParts(path.join(dir, 'ud2'), path.join(dir, 'out2'))).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'out2/Default/IndexedDB/site/000001.log'), 'utf8')).toBe('mine');
    expect(fs.existsSync(path.join(dir, 'out2/Default/IndexedDB/site/stolen'))).toBe(false);
  });
});

describe('copyTree', () => {
  it('copies regular files with their content, private to the engine', async () => {
    write('a/x/y.bin', 'data');
    expect(await copyTree(path.join(dir, 'a'), path.join(dir, 'b'))).toBe(1);
    const copy = path.join(dir, 'b/x/y.bin');
    expect(fs.readFileSync(copy, 'utf8')).toBe('data');
    expect(fs.statSync(copy).mode & 0o077).toBe(0);
  });
});
