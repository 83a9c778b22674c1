/**
 * A session's files on the host: `<dataDir>/sessions/<id>/` with its own mounted disk where the
 * host gives sessions a byte quota (session-disks.ts, watched for a full one), the directories
 * the browser and processes use, and — for an unjailed browser of a root engine — the jail user
 * its processes run as. Each piece is handed to the session's scope as it is made; the directory
 * itself goes last, after the disk mounted over it.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SessionDirs } from './session-handle.js';
import type { SessionScope } from './session-scope.js';
import type { SessionDisks } from './session-disks.js';
import { DiskFullWatch, type DiskFull } from './disk-full-watch.js';
import { removeTree } from '../session-fs/remove-tree.js';
import { claimJailUser, ensureTraversable, ownTree } from '../sandbox/jail-user.js';

/** Steps that must finish before the next starts and bound their own waits (session-scope.ts). */
export const UNTIL_DONE = { timeoutMs: Infinity };

export function sessionDirs(sessionDir: string): SessionDirs {
  const root = path.join(sessionDir, 'root');
  return { root, userData: path.join(sessionDir, 'user-data'), tmp: path.join(sessionDir, 'tmp'), downloads: path.join(root, 'downloads') };
}

/** What every session of an engine shares about its filesystem: its byte quota, and who hears of a full one. */
export interface SessionDiskSetup {
  disks: SessionDisks;
  /** The session filled its quota (once per filling; the runtime also writes its log line). */
  onFull?: (sessionId: string, f: DiskFull) => void;
}

/** Makes the session dir (on its own disk when there is one) and the directories in it. */
export async function makeSessionFiles(
  scope: SessionScope,
  s: { id: string; sessionDir: string; dirs: SessionDirs; disk?: SessionDiskSetup; say: (line: string) => void },
): Promise<void> {
  // Owned first, so it goes last: the disk mounted over it is detached before.
  scope.defer('session dir', () => removeTree(s.sessionDir), UNTIL_DONE);
  // First: everything below (root, profile, temp dir) lands on the session's own filesystem.
  const disk = s.disk && (await s.disk.disks.attach(s.sessionDir));
  if (s.disk && disk) {
    const onFull = s.disk.onFull;
    scope.own(disk, (d) => d.detach(), 'disk', UNTIL_DONE);
    const watch = new DiskFullWatch(disk, (f) => {
      s.say(
        `the session's filesystem is full (its quota is ${f.limitMb} MiB${f.inodes ? ', out of inodes' : ''}): writes fail with ENOSPC (No space left on device)\n`,
      );
      onFull?.(s.id, f);
    });
    scope.own(watch, (w) => w.stop(), 'disk watch');
  }
  for (const d of [s.dirs.root, s.dirs.downloads, s.dirs.userData, s.dirs.tmp]) await fs.mkdir(d, { recursive: true, mode: 0o700 });
}

/**
 * An unjailed browser (--insecure-no-jail) of a root engine: its processes and code still run in
 * bwrap where it exists, as a jail user of their own, which the session root records.
 */
export async function claimUnjailedUser(scope: SessionScope, sessionDir: string, root: string): Promise<void> {
  const user = scope.own(claimJailUser(), (u) => u.release(), 'jail user', UNTIL_DONE);
  const sessions = path.dirname(sessionDir);
  await ensureTraversable(root, [sessionDir, sessions, path.dirname(sessions)]);
  await fs.chmod(sessionDir, 0o711);
  await ownTree(user.user, root);
}
