/**
 * Process-group helpers: every session browser (and Xvfb) runs in its own group so one
 * signal reaches the whole tree, including renderers and helpers that outlive the main
 * process. Before killing a group found in the database we verify a marker in its command
 * line, so a recycled pid is never hit.
 *
 * The marker scan reads every process's command line, and it runs at every session's end: read
 * synchronously it held the engine's event loop for ~30 ms per end with ten sessions running
 * (3 s of an 85 s CPU profile of `npm run bench:lifecycle -- --concurrency=10`), and every answer
 * waited behind it. It reads asynchronously, a batch of files at a time.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';

/** Command lines read at once by the marker scan (each read is a thread-pool job). */
const SCAN_BATCH = 32;

export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const readCmdline = (pid: string): Promise<string | undefined> =>
  fsp.readFile(`/proc/${pid}/cmdline`, 'utf8').then(
    (c) => c.replace(/\0/g, ' '),
    () => undefined,
  );

function pgidOf(pid: string): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[2]);
  } catch {
    return undefined;
  }
}

/** Pids of live processes whose command line contains `marker`, or one of `marker`s (Linux /proc; empty elsewhere). */
export async function processesWithMarker(marker: string | readonly string[]): Promise<Array<{ pid: number; pgid?: number }>> {
  const markers = typeof marker === 'string' ? [marker] : marker;
  if (markers.length === 0) return [];
  const carries = (cmd: string | undefined) => cmd !== undefined && markers.some((m) => cmd.includes(m));
  const entries = await fsp.readdir('/proc').catch(() => [] as string[]);
  const pids = entries.filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  const out: Array<{ pid: number; pgid?: number }> = [];
  for (let i = 0; i < pids.length; i += SCAN_BATCH) {
    const batch = pids.slice(i, i + SCAN_BATCH);
    const cmds = await Promise.all(batch.map(readCmdline));
    // Only a match's stat is read, so that stays synchronous: a handful per scan.
    batch.forEach((pid, k) => carries(cmds[k]) && out.push({ pid: Number(pid), pgid: pgidOf(pid) }));
  }
  return out;
}

/** Kills every process group that has a process carrying `marker` (or one of them: one scan for all); returns how many groups. */
export async function killMarkedGroups(marker: string | readonly string[]): Promise<number> {
  const groups = new Set<number>();
  const own = pgidOf(String(process.pid));
  for (const p of await processesWithMarker(marker)) {
    if (p.pgid && p.pgid > 1 && p.pgid !== own) groups.add(p.pgid);
    else killPid(p.pid);
  }
  for (const g of groups) killGroup(g);
  return groups.size;
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
