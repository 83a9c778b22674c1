/**
 * Recovery at start removes the session directories a previous run left. Something may still be
 * writing into one (a process killed a moment ago finishing its write, a browser a crashed engine
 * was still starting): a recursive delete then meets files that appeared behind it (ENOTEMPTY).
 * That must never stop the engine from starting (engine-host's crash case was red in CI on it);
 * the directory is noted and removed by a later start once nothing holds it. (Runs as root:
 * a tmpfs mounted inside the directory makes it deterministically unremovable.)
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverSessions } from '../../../src/engine/domain/sessions/session-recovery.js';
import { RecoveryReport } from '../../../src/engine/domain/recovery-report.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let te: TestEngine;
const sessionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-recovery-busy-'));

beforeAll(async () => {
  te = await startTestEngine();
});
afterAll(async () => {
  await te?.stop();
  fs.rmSync(sessionsDir, { recursive: true, force: true });
});

const NOTE = 'leftover session directories (not removed: something still writes into them; the next start tries again)';

function recover(recovery: RecoveryReport) {
  return recoverSessions({ recovery, db: te.engine.context.db, nodeId: 'no-such-node', sessionsDir, owned: () => false, now: new Date() });
}

describe('crash recovery of a directory it cannot remove yet', () => {
  it('starts anyway, notes the directory, and removes it at the next start', async () => {
    // Deterministically unremovable: a mount point inside it (EBUSY, as a busy file would be).
    const busy = path.join(sessionsDir, 'busyleftover000000000001', 'root', 'busy');
    fs.mkdirSync(busy, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', 'none', busy]);
    try {
      const recovery = new RecoveryReport();
      await expect(recover(recovery)).resolves.toEqual([]);
      expect(recovery.take()).toEqual({ [NOTE]: 1 });
    } finally {
      execFileSync('umount', [busy]);
    }
    const recovery = new RecoveryReport();
    await expect(recover(recovery)).resolves.toEqual([]);
    expect(fs.readdirSync(sessionsDir)).toEqual([]);
    expect(recovery.take()).toBeNull();
  });

  it('never fails on files appearing behind its delete (what CI met), and leaves nothing once they stop', async () => {
    const leftover = path.join(sessionsDir, 'busyleftover000000000002', 'root');
    fs.mkdirSync(leftover, { recursive: true });
    // The writer's command line does not carry the directory (env only): recovery's kill by
    // marker does not reach it, as it would not reach a write already under way.
    const writer = spawn('sh', ['-c', 'i=0; while :; do i=$((i+1)); : > "$D/new$((i % 50))"; done'], { env: { ...process.env, D: leftover }, stdio: 'ignore' });
    // Listened for from the start: when a pass wins the race the writer's next `: >` fails and the
    // shell exits on its own (a redirection error on a special built-in), long before the kill.
    const closed = new Promise((r) => writer.once('close', r));
    try {
      await new Promise((r) => setTimeout(r, 200));
      // Whether a pass wins the race or not, the start goes on (before: ENOTEMPTY failed it).
      await expect(recover(new RecoveryReport())).resolves.toEqual([]);
    } finally {
      writer.kill('SIGKILL');
      await closed;
    }
    await expect(recover(new RecoveryReport())).resolves.toEqual([]);
    expect(fs.readdirSync(sessionsDir)).toEqual([]);
  });
});
