/**
 * The share of the machine's CPU time spent idle between two calls (all cores, from `os.cpus()`,
 * which reads /proc/stat on Linux): what the standby's launch limit follows
 * (domain/sessions/standby-depth.ts). The first call has nothing to compare with, and an interval
 * under `minMs` per core is too short to say: undefined (the next call covers it too).
 */
import os from 'node:os';

/** The shortest interval (ms per core) a share is given for. */
const MIN_INTERVAL_MS = 250;

export function cpuIdleSampler(cpus: () => os.CpuInfo[] = os.cpus, minMs = MIN_INTERVAL_MS): () => number | undefined {
  let last: { idle: number; total: number } | undefined;
  return () => {
    let idle = 0;
    let total = 0;
    const all = cpus();
    for (const c of all) {
      idle += c.times.idle;
      total += c.times.idle + c.times.user + c.times.nice + c.times.sys + c.times.irq;
    }
    if (!last) {
      last = { idle, total };
      return undefined;
    }
    // The counters tick in 10 ms steps: a shorter interval says little, so it keeps counting on.
    if (total - last.total < minMs * all.length) return undefined;
    const share = (idle - last.idle) / (total - last.total);
    last = { idle, total };
    return share;
  };
}
