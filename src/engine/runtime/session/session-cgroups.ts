/**
 * A session's cgroups: the memory group every jail of the session starts in (its `memory`
 * enforced, sandbox/memory-group.ts) and the pids group around it (sandbox/pids-group.ts), or
 * RLIMIT_NPROC where no cgroup bounds its tasks. Made when the session starts and owned by its
 * scope, which removes them when it closes.
 *
 * The pids group is read now and then for refused forks: a tenant at its limit gets EAGAIN and
 * the engine hears nothing else, so the first refusal is said once in the session's log and to
 * `onLimitReached` (its telemetry), then the watch stops.
 */
import { createMemoryGroup, memoryBytes, type MemoryGroup } from '../sandbox/memory-group.js';
import { createPidsGroup, nprocLimit, pidsLimits, type PidsGroup } from '../sandbox/pids-group.js';
import type { JailGroups } from '../sandbox/jail-start.js';
import { tenantsCpuGroup } from '../sandbox/cpu-group.js';
import type { LimitReached } from './session-handle.js';
import type { SessionScope } from './session-scope.js';

/** How often a session's pids group is asked whether its limit refused a fork (one file read). */
const PIDS_CHECK_MS = 2_000;

/**
 * A session's memory when its options do not say (a standby browser: its shape's; rows from
 * before `memory`): Kernel's defaults, headless 1 GiB, headful 8 GiB (domain's session-region.ts).
 */
export function memoryOf(o: { headless: boolean; memory?: string }): number {
  return memoryBytes(o.memory ?? (o.headless ? '1GiB' : '8GiB'));
}

export class SessionCgroups {
  private memory?: MemoryGroup;
  private pids?: PidsGroup;
  private watch?: NodeJS.Timeout;
  private readonly listeners = new Set<(hit: LimitReached) => void>();

  constructor(
    private readonly id: string,
    /** A line for the session's own log. */
    private readonly say: (line: string) => void,
  ) {}

  /** Makes both groups (the pids group holds the memory group on cgroup v2) and hands them to `scope`. */
  open(scope: SessionScope, memory: number): void {
    // One step: the memory group goes before the pids group that holds it.
    scope.defer(
      'cgroups',
      async () => {
        clearInterval(this.watch);
        this.listeners.clear();
        await this.memory?.close();
        await this.pids?.close();
      },
      // Removing them waits for their last processes to go; the next step must not start before.
      { timeoutMs: Infinity },
    );
    this.memory = createMemoryGroup(this.id, memory);
    this.pids = createPidsGroup(this.id, this.memory?.method === 'cgroup-v2' ? this.memory.dir : undefined);
    this.watchPids();
  }

  /** What every jail of the session starts in (sandbox/jail-start.ts). */
  get jailGroups(): JailGroups {
    return { procs: [this.memory?.procsFile, this.pids?.procsFile, tenantsCpuGroup().procsFile], nproc: nprocLimit() };
  }

  /** A claimed standby browser ran with its shape's memory; from now on the session's. */
  setMemory(bytes: number): void {
    this.memory?.limit(bytes);
  }

  onLimitReached(fn: (hit: LimitReached) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private watchPids(): void {
    const group = this.pids;
    if (!group) return;
    this.watch = setInterval(() => {
      const refused = group.limitHits();
      if (!refused) return;
      clearInterval(this.watch);
      const limit = pidsLimits().perSession;
      this.say(`the session reached its limit of ${limit} tasks (processes and threads): ${refused} fork/clone refused (EAGAIN)\n`);
      for (const fn of this.listeners) fn({ resource: 'pids', limit, refused });
    }, PIDS_CHECK_MS);
    this.watch.unref();
  }
}
