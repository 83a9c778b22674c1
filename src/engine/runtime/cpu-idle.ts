/**
 * The share of the machine's CPU time spent idle between two calls (all cores, from `os.cpus()`,
 * which reads /proc/stat on Linux): what the standby's launch limit follows
 * (domain/sessions/standby-depth.ts). The first call has nothing to compare with: undefined.
 */
import os from 'node:os';

export function cpuIdleSampler(cpus: () => os.CpuInfo[] = os.cpus): () => number | undefined {
  let last: { idle: number; total: number } | undefined;
  return () => {
    let idle = 0;
    let total = 0;
    for (const c of cpus()) {
      idle += c.times.idle;
      total += c.times.idle + c.times.user + c.times.nice + c.times.sys + c.times.irq;
    }
    const prev = last;
    last = { idle, total };
    if (!prev || total <= prev.total) return undefined;
    return (idle - prev.idle) / (total - prev.total);
  };
}
