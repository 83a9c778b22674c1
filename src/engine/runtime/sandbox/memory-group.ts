/**
 * Enforces a session's `memory`: where the engine runs as root and a memory controller is
 * usable, every process of the session's jails (bwrap, Chromium and its children, session
 * processes, executors and the REPL) starts inside one memory cgroup per session, limited to
 * the session's memory; a jail allocating past it is OOM-killed by the kernel there, never the
 * engine. cgroup v2 needs `memory` in the subtree of the engine's own group (`memory.max`,
 * swap off with `memory.swap.max`); cgroup v1 (hybrid hosts) a memory hierarchy, where the
 * group goes below the engine's own one (`memory.limit_in_bytes`, with swap:
 * `memory.memsw.limit_in_bytes`). Probed once per engine process, groups of dead engines
 * removed (`bd-mem-<pid>-…`); `/healthz` says which (`memory.method`). Elsewhere memory is
 * reported only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { killListed, ownCgroupDir, removeGroup, sweepDeadGroups } from './cgroup-dirs.js';
import { jailUsersOn } from './jail-user.js';
import { pidsParentV2 } from './pids-group.js';

export type MemoryMethod = 'cgroup-v2' | 'cgroup-v1' | 'none';

const PREFIX = 'bd-mem-';

let probed: { method: MemoryMethod; base?: string } | undefined;

/** Whether a group made below `base` has `limitFile` (the controller is there for us). */
function canLimit(base: string, limitFile: string): boolean {
  const probe = path.join(base, `${PREFIX}${process.pid}-probe`);
  try {
    fs.mkdirSync(probe);
    try {
      return fs.existsSync(path.join(probe, limitFile));
    } finally {
      fs.rmdirSync(probe);
    }
  } catch {
    return false;
  }
}

/**
 * Removes the memory groups of engines that are gone. The probe does it once per process; every
 * engine start does it again, since one process may start several engines.
 */
export function sweepDeadMemoryGroups(): void {
  const { base } = memoryMethod();
  if (base) sweepDeadGroups(base, PREFIX);
}

/** How this engine limits a session's memory (learned once; leftovers of dead engines removed). */
export function memoryMethod(): { method: MemoryMethod; base?: string } {
  if (probed) return probed;
  probed = { method: 'none' };
  // Only root may move a jail (another uid's processes) into a group and write its limit.
  if (!jailUsersOn()) return probed;
  for (const [version, method, limit] of [
    [2, 'cgroup-v2', 'memory.max'],
    [1, 'cgroup-v1', 'memory.limit_in_bytes'],
  ] as const) {
    // v2: one group per process, so a session's memory group sits in the engine's pids group (pids-group.ts) and carries both limits.
    const base = version === 2 ? (pidsParentV2() ?? ownCgroupDir('v2')) : ownCgroupDir({ v1: 'memory' });
    if (!base) continue;
    sweepDeadGroups(base, PREFIX);
    if (canLimit(base, limit)) {
      probed = { method, base };
      break;
    }
  }
  return probed;
}

/** `8GiB` → bytes (the session's `memory`; whole GiB or MiB). */
export function memoryBytes(memory: string): number {
  const m = /^(\d+)(GiB|MiB)$/.exec(memory);
  if (!m) throw new Error(`not a memory size: ${memory}`);
  return Number(m[1]) * (m[2] === 'GiB' ? 1024 ** 3 : 1024 ** 2);
}

export interface MemoryGroup {
  readonly method: Exclude<MemoryMethod, 'none'>;
  readonly dir: string;
  /** The `cgroup.procs` file a launch writes its first process into (jail-start.ts). */
  readonly procsFile: string;
  /** Sets the limit (a claimed standby browser takes its session's memory). */
  limit(bytes: number): void;
  /** Kills whatever is left in the group and removes it. */
  close(): Promise<void>;
}

/** The session's memory group limited to `bytes`, or undefined where memory is not enforced. */
export function createMemoryGroup(sessionId: string, bytes: number): MemoryGroup | undefined {
  const { method, base } = memoryMethod();
  if (method === 'none' || !base) return undefined;
  const dir = path.join(base, `${PREFIX}${process.pid}-${sessionId}`);
  fs.mkdirSync(dir, { recursive: true });
  const write = (file: string, v: string): boolean => {
    try {
      fs.writeFileSync(path.join(dir, file), v);
      return true;
    } catch {
      return false;
    }
  };
  const apply = (bytes: number) => {
    if (method === 'cgroup-v2') {
      if (!write('memory.max', String(bytes))) throw new Error(`cannot limit the memory of ${dir}`);
      // Over the limit means OOM, not swap (Kernel's memory is RAM).
      write('memory.swap.max', '0');
      return;
    }
    // v1: memsw (memory + swap) may never be below the memory limit: order the writes by direction.
    const memsw = fs.existsSync(path.join(dir, 'memory.memsw.limit_in_bytes'));
    const grow = memsw && bytes > Number(fs.readFileSync(path.join(dir, 'memory.limit_in_bytes'), 'utf8'));
    if (grow) write('memory.memsw.limit_in_bytes', String(bytes));
    if (!write('memory.limit_in_bytes', String(bytes))) throw new Error(`cannot limit the memory of ${dir}`);
    if (memsw && !grow) write('memory.memsw.limit_in_bytes', String(bytes));
  };
  // The limit in force: a claimed standby browser whose session asks for the same memory costs no cgroup I/O.
  let current: number | undefined;
  const limit = (bytes: number) => {
    if (bytes === current) return;
    apply(bytes);
    current = bytes;
  };
  try {
    limit(bytes);
  } catch (err) {
    fs.rmdirSync(dir);
    throw err;
  }
  return {
    method,
    dir,
    procsFile: path.join(dir, 'cgroup.procs'),
    limit,
    async close() {
      // rmdir succeeds once the group is empty: SIGKILL what is left (v2 has cgroup.kill) and wait for the reaping.
      await removeGroup(dir, () => (method === 'cgroup-v2' ? write('cgroup.kill', '1') : killListed(path.join(dir, 'cgroup.procs'))), 200);
    },
  };
}
