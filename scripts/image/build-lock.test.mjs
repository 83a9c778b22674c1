import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireBuildLock } from './build-lock.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-build-lock-'));
const lock = path.join(root, 'out/image/build.lock');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the image build lock', () => {
  it('waits while a live process holds it, and takes it once released', async () => {
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    // A live holder: this very process (another build would be another live pid).
    fs.writeFileSync(lock, String(process.pid));
    let taken = false;
    const acquired = acquireBuildLock(root).then(() => (taken = true));
    await new Promise((r) => setTimeout(r, 1500));
    expect(taken).toBe(false);
    fs.rmSync(lock);
    await acquired;
    expect(fs.readFileSync(lock, 'utf8')).toBe(String(process.pid));
    fs.rmSync(lock);
  });

  it('takes over a lock left by a build that was killed (its pid is gone)', async () => {
    // Above the kernel's pid_max (at most 2^22): no process has it.
    fs.writeFileSync(lock, String(2 ** 22 + 1));
    await acquireBuildLock(root);
    expect(fs.readFileSync(lock, 'utf8')).toBe(String(process.pid));
  });
});
