/**
 * CPU time (user + system) a process tree has used so far, from /proc/<pid>/stat: every live
 * process's own utime + stime plus the cutime + cstime of the children it has reaped, so the work
 * of processes that already exited (bwrap's setup, the shell, Chromium's forks) counts once their
 * parent waited for them. This is work, not wall time: comparable while other jobs load the
 * machine. Resolution is the clock tick (10 ms), so it is summed over several launches.
 */
import fs from 'node:fs';
import { processKind } from './pss.js';

/** USER_HZ: /proc's times are in these ticks on every Linux Node runs on. */
const TICKS_PER_SECOND = 100;

/** `pid` and every live process below it (following /proc/<pid>/task/<tid>/children). */
export function treePids(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const kids = fs.readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').trim();
        if (kids) out.push(...kids.split(/\s+/).map(Number));
      } catch {
        /* exited meanwhile */
      }
    }
  }
  return out;
}

/**
 * Milliseconds of CPU of one process: its own and, unless `ownOnly`, its reaped children's
 * (bench/session-cpu.ts reads the engine's own, apart from the jails and browsers below it).
 */
export function cpuMsOf(pid: number, ownOnly = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state is field 3; utime..cstime are 14..17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + (ownOnly ? 0 : Number(f[13]) + Number(f[14]));
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export interface TreeCpu {
  totalMs: number;
  /** CPU milliseconds and process count by kind (bench/pss.ts's processKind). */
  byKind: Map<string, { ms: number; n: number }>;
}

/** CPU used so far by `root` and everything below it, together and by kind of process. */
export function cpuOfTree(root: number): TreeCpu {
  const byKind = new Map<string, { ms: number; n: number }>();
  let totalMs = 0;
  for (const pid of treePids(root)) {
    const ms = cpuMsOf(pid);
    totalMs += ms;
    const k = processKind(pid);
    const e = byKind.get(k) ?? { ms: 0, n: 0 };
    e.ms += ms;
    e.n += 1;
    byKind.set(k, e);
  }
  return { totalMs, byKind };
}
