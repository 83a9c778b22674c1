/**
 * removeTree (runtime/session-fs/remove-tree.ts) is how a session's directory goes at its end and
 * at crash recovery: a directory busy for a moment is removed on a later attempt; one that stays
 * busy fails after the attempts given, with the reason. (Runs as root: a tmpfs mounted inside the
 * tree makes it deterministically unremovable while it is mounted.)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTree } from './remove-tree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    try {
      execFileSync('umount', [path.join(d, 'a', 'busy')], { stdio: 'ignore' });
    } catch {}
    fs.rmSync(d, { recursive: true, force: true });
  }
});

function busyTree(): { dir: string; busy: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-remove-tree-'));
  dirs.push(dir);
  const busy = path.join(dir, 'a', 'busy');
  fs.mkdirSync(busy, { recursive: true });
  fs.writeFileSync(path.join(dir, 'a', 'file'), 'x');
  execFileSync('mount', ['-t', 'tmpfs', 'none', busy]);
  return { dir, busy };
}

describe('removeTree', () => {
  it('removes a tree that is busy only for a moment', async () => {
    const { dir, busy } = busyTree();
    setTimeout(() => execFileSync('umount', [busy]), 50);
    await removeTree(dir);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('gives up on a tree that stays busy, with the reason', async () => {
    const { dir } = busyTree();
    await expect(removeTree(dir, 2)).rejects.toMatchObject({ code: 'EBUSY' });
    // What could go, went; the busy part is still there for a later attempt.
    expect(fs.existsSync(path.join(dir, 'a', 'file'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'a', 'busy'))).toBe(true);
  });

  it('is content with a tree that does not exist', async () => {
    await expect(removeTree(path.join(os.tmpdir(), 'bd-remove-tree-never-there'))).resolves.toBeUndefined();
  });
});
