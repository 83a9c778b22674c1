/**
 * After an unclean stop: the database may say sessions are running on this node whose
 * browsers no process of this engine owns. At start they are ended ('engine_restarted'),
 * their leftover process groups killed — only after checking that the recorded group still
 * carries the session's marker (its directory) in a command line — and their directories removed.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { killGroup, killMarkedGroups } from '../../runtime/chromium/process-group.js';
import { shortTmpLink } from '../../runtime/session/short-tmp-link.js';
import { removeTree } from '../../runtime/session-fs/remove-tree.js';
import { unmountLeftover } from '../../runtime/session/session-disks.js';
import type { RecoveryReport } from '../recovery-report.js';

/** A stable id for the engine node that owns this data dir. */
export function nodeIdOf(dataDir: string): string {
  const file = path.join(dataDir, 'node-id');
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    if (id) return id;
  } catch {
    /* first start */
  }
  const id = randomUUID();
  fs.writeFileSync(file, id + '\n', { mode: 0o600 });
  return id;
}

function cmdlineHas(pid: number, marker: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return false;
  }
}

/**
 * Removes a leftover session directory. A process killed a moment ago may still be finishing a
 * write into it (a signal is delivered when the process next runs), so a first pass can meet a
 * file that appeared behind it (ENOTEMPTY): fs.rm tries again. A directory that still cannot
 * go never stops the engine from starting: it is noted and the next start tries again.
 */
async function removeLeftover(dir: string, recovery: RecoveryReport): Promise<void> {
  // A session dir that is its own disk (session-disks.ts) is unmounted first: its image then goes with it.
  await unmountLeftover(dir);
  // A leftover that stays busy must not fail the start: noted, and the next start tries again.
  await removeTree(dir).catch(() =>
    recovery.note('leftover session directories (not removed: something still writes into them; the next start tries again)', 1),
  );
}

export async function recoverSessions(opts: {
  /** Where the count of ended sessions is noted (logged once after every recovery). */
  recovery: RecoveryReport;
  db: Kysely<Database>;
  nodeId: string;
  sessionsDir: string;
  owned: (id: string) => boolean;
  now: Date;
}): Promise<string[]> {
  const rows = await opts.db
    .selectFrom('browser_sessions')
    .select(['id', 'pgid', 'xvfb_pid', 'marker', 'created_at'])
    .where('node_id', '=', opts.nodeId)
    .where('deleted_at', 'is', null)
    .execute();
  const ended: string[] = [];
  // The marker must lie inside our sessions dir: a row can never make us kill or delete elsewhere.
  const safe = (marker: string) => path.resolve(marker).startsWith(path.resolve(opts.sessionsDir) + path.sep);
  const leftoverRows = rows.filter((r) => !opts.owned(r.id));
  const unclaimedDirs = async () =>
    (await fsp.readdir(opts.sessionsDir).catch(() => [] as string[])).filter((name) => !opts.owned(name)).map((name) => path.join(opts.sessionsDir, name));
  // Whatever still carries a leftover's dir in its command line goes first, in one scan of /proc for all of them.
  await killMarkedGroups([...leftoverRows.map((r) => r.marker).filter(safe), ...(await unclaimedDirs())]);
  for (const r of leftoverRows) {
    if (safe(r.marker)) {
      for (const pid of [r.pgid, r.xvfb_pid]) if (pid && cmdlineHas(pid, r.marker)) killGroup(pid);
      await removeLeftover(r.marker, opts.recovery);
    }
    const link = shortTmpLink(r.id);
    if (link) await fsp.rm(link, { force: true });
    await opts.db
      .updateTable('browser_sessions')
      .set({
        deleted_at: opts.now.toISOString(),
        ended_reason: 'engine_restarted',
        uptime_ms: Math.max(0, opts.now.getTime() - Date.parse(r.created_at)),
        pid: null,
        pgid: null,
        xvfb_pid: null,
      })
      .where('id', '=', r.id)
      .where('deleted_at', 'is', null)
      .execute();
    ended.push(r.id);
  }
  opts.recovery.note('browser sessions (engine_restarted: their browsers and processes killed)', ended.length);
  // Directories of sessions that no row claims any more (e.g. a crash between insert and cleanup).
  for (const dir of await unclaimedDirs()) {
    await removeLeftover(dir, opts.recovery);
    const link = shortTmpLink(path.basename(dir));
    if (link) await fsp.rm(link, { force: true });
  }
  return ended;
}
