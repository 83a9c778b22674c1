/**
 * CPU and memory of a process tree from Linux /proc (the command and its descendants):
 * CPU is the share of one core used since the previous sample (or since start), memory the
 * summed resident set. Elsewhere both read 0.
 */
import fs from 'node:fs';

const CLK_TCK = 100;
const PAGE_SIZE = 4096;

function read(p: string): string | undefined {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    const text = read(`/proc/${pid}/task/${t}/children`);
    if (text) for (const c of text.trim().split(/\s+/)) if (c) out.push(Number(c));
  }
  return out;
}

export function treeOf(pid: number, limit = 500): number[] {
  const all: number[] = [];
  const queue = [pid];
  while (queue.length && all.length < limit) {
    const p = queue.shift()!;
    all.push(p);
    queue.push(...childrenOf(p));
  }
  return all;
}

/**
 * Resident memory from `status` (VmRSS), not `stat`'s rss field: since Linux 6.2 the latter is
 * the approximate per-CPU counter, which reads 0 for a process that just exec'd (a `status`
 * right after `spawn` answered mem_bytes 0 in CI); `status` sums the counter exactly (6.16+).
 */
function rssOf(pid: number): number | undefined {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(read(`/proc/${pid}/status`) ?? '');
  return m ? Number(m[1]) * 1024 : undefined;
}

function ticksAndRss(pid: number): { ticks: number; rss: number } | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ", field 3 (state) is f[0]; utime/stime are fields 14/15, rss field 24.
  return { ticks: Number(f[11]) + Number(f[12]), rss: rssOf(pid) ?? Number(f[21]) * PAGE_SIZE };
}

export class ProcStats {
  private lastTicks = 0;
  private lastAt: number;

  constructor(startedAt: number) {
    this.lastAt = startedAt;
  }

  sample(pid: number | undefined, now = Date.now()): { cpu_pct: number; mem_bytes: number } {
    if (!pid || process.platform !== 'linux') return { cpu_pct: 0, mem_bytes: 0 };
    let ticks = 0;
    let rss = 0;
    for (const p of treeOf(pid)) {
      const s = ticksAndRss(p);
      if (s) {
        ticks += s.ticks;
        rss += s.rss;
      }
    }
    const elapsed = Math.max(1, now - this.lastAt) / 1000;
    const cpu = Math.max(0, ((ticks - this.lastTicks) / CLK_TCK / elapsed) * 100);
    this.lastTicks = ticks;
    this.lastAt = now;
    return { cpu_pct: Math.round(cpu * 10) / 10, mem_bytes: rss };
  }
}
