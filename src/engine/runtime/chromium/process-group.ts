/**
 * Process-group helpers: every session browser (and Xvfb) runs in its own group so one
 * signal reaches the whole tree, including renderers and helpers that outlive the main
 * process. Before killing a group found in the database we verify a marker in its command
 * line, so a recycled pid is never hit.
 */
import fs from 'node:fs';

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

function readCmdline(pid: string | number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

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

/** Pids of live processes whose command line contains `marker` (Linux /proc; empty elsewhere). */
export function processesWithMarker(marker: string): Array<{ pid: number; pgid?: number }> {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Array<{ pid: number; pgid?: number }> = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    const cmd = readCmdline(e);
    if (cmd && cmd.includes(marker)) out.push({ pid: Number(e), pgid: pgidOf(e) });
  }
  return out;
}

/** Kills every process group that has a process carrying `marker`; returns how many groups. */
export function killMarkedGroups(marker: string): number {
  const groups = new Set<number>();
  const own = pgidOf(String(process.pid));
  for (const p of processesWithMarker(marker)) {
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
