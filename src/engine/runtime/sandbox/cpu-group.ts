/**
 * The tenants' share of the CPU: every jail of this engine (session browsers and their processes,
 * app invocations, replay helpers) starts in one cpu group whose weight is one ordinary process's
 * (cgroup v1 `cpu.shares` 1024, the default of a nice-0 task). However many threads the tenants
 * run, together they weigh as much as one of the engine's own threads, so the engine — which
 * carries every API answer and every CDP message — gets the CPU when it needs it, and the tenants
 * get all the rest.
 *
 * Measured with `npm run bench:lifecycle -- --concurrency=10` (ten sessions loading pages on two
 * cores): without it the engine's timers ran up to 150 ms late (p90 of 2 s windows) and a minor GC
 * took up to 119 ms of wall time: the engine waited for a core behind Chromium's threads. Pool
 * release p50 68–101 ms, standby release 40–72 ms; with it 4–7 ms and 3 ms, the ten sessions'
 * own lifecycle unchanged. The price is at one session at a time with the client on the same
 * machine: ~50–70 ms of a ~400 ms lifecycle (`npx tsx bench/lifecycle.ts --concurrency=1`, with and
 * without alternating), since that client now outranks the browser (docs/bench/results.md).
 * Niceness did not do it: jails at nice 5 or 10 changed nothing measurable.
 *
 * cgroup v1 only (hybrid hosts, this machine): `<cpu hierarchy>/<own group>/bd-cpu-<pid>`. On a
 * pure cgroup v2 host the engine's own group holds its process, and v2 lets a group with
 * processes in it give the cpu controller to its children only at the root; there the tenants
 * share the CPU with the engine as before. Root only (a jail is another uid's process); probed
 * once per engine process, groups of dead engines removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownCgroupDir, sweepDeadGroups } from './cgroup-dirs.js';
import { jailUsersOn } from './jail-user.js';

/** The weight of all tenants together: one nice-0 task's. */
export const TENANTS_CPU_SHARES = 1024;

const PREFIX = 'bd-cpu-';

export type CpuMethod = 'cgroup-v1' | 'none';

let probed: { method: CpuMethod; procsFile?: string } | undefined;

/** How this engine weighs its tenants' CPU, and the `cgroup.procs` a jail's first process joins (jail-start.ts). */
export function tenantsCpuGroup(): { method: CpuMethod; procsFile?: string } {
  if (probed) return probed;
  probed = { method: 'none' };
  if (!jailUsersOn()) return probed;
  const base = ownCgroupDir({ v1: 'cpu' });
  if (!base) return probed;
  // Named `bd-cpu-<pid>-tenants` so sweepDeadGroups (`<prefix><pid>-…`) removes a dead engine's.
  const dir = path.join(base, `${PREFIX}${process.pid}-tenants`);
  sweepDeadGroups(base, PREFIX);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cpu.shares'), String(TENANTS_CPU_SHARES));
    probed = { method: 'cgroup-v1', procsFile: path.join(dir, 'cgroup.procs') };
  } catch {
    try {
      fs.rmdirSync(dir);
    } catch {
      /* not made */
    }
  }
  return probed;
}
