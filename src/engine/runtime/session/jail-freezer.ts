/**
 * Freezes and thaws one session's browser jail (idle sessions, Kernel's "standby"). Where the
 * engine can make cgroup v2 groups below its own (root, or a delegated systemd scope), each
 * jail starts inside its own group and `cgroup.freeze` stops all of it at once — renderers and
 * helpers forked later included — and `cgroup.kill` ends it. Elsewhere every process below the
 * browser's first process gets SIGSTOP/SIGCONT (`/proc` walk at freeze time). Probed once per
 * engine process; `/healthz` reports which (`freeze.method`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ownCgroupDir, removeGroup, sweepDeadGroups } from '../sandbox/cgroup-dirs.js';

export type FreezeMethod = 'cgroup' | 'signal' | 'none';

let probed: { method: FreezeMethod; base?: string } | undefined;

/** How this machine lets the engine freeze a jail (learned once; leftover groups of dead engines removed). */
export function freezeMethod(): { method: FreezeMethod; base?: string } {
  if (probed) return probed;
  probed = { method: process.platform === 'linux' ? 'signal' : 'none' };
  const base = ownCgroupDir('v2');
  if (!base) return probed;
  sweepDeadGroups(base, 'bd-');
  const probe = path.join(base, `bd-${process.pid}-probe`);
  try {
    fs.mkdirSync(probe);
    const ok = fs.existsSync(path.join(probe, 'cgroup.freeze')) && fs.existsSync(path.join(probe, 'cgroup.kill'));
    fs.rmdirSync(probe);
    if (ok) probed = { method: 'cgroup', base };
  } catch {
    /* not delegated: signals */
  }
  return probed;
}

/** Every descendant of `root` (host pids), read from /proc. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

export interface JailFreezer {
  readonly method: FreezeMethod;
  readonly frozen: boolean;
  /** cgroup only: the `cgroup.procs` file a launch writes its first process into. */
  readonly procsFile?: string;
  freeze(): void;
  thaw(): void;
  /** Kills whatever is left in the group and removes it (cgroup); thaws (signals). */
  close(): Promise<void>;
}

/** A freezer for one session; `rootPid` is the current browser's first process (bwrap or Chromium). */
export function createFreezer(sessionId: string, rootPid: () => number | undefined): JailFreezer {
  const { method, base } = freezeMethod();
  if (method === 'cgroup' && base) return cgroupFreezer(path.join(base, `bd-${process.pid}-${sessionId}`));
  return signalFreezer(method, rootPid);
}

function cgroupFreezer(dir: string): JailFreezer {
  fs.mkdirSync(dir, { recursive: true });
  let frozen = false;
  const write = (file: string, v: string) => {
    try {
      fs.writeFileSync(path.join(dir, file), v);
    } catch {
      /* the group is gone (session ended) */
    }
  };
  return {
    method: 'cgroup',
    procsFile: path.join(dir, 'cgroup.procs'),
    get frozen() {
      return frozen;
    },
    freeze() {
      frozen = true;
      write('cgroup.freeze', '1');
    },
    thaw() {
      if (!frozen) return;
      frozen = false;
      write('cgroup.freeze', '0');
    },
    async close() {
      write('cgroup.freeze', '0');
      // rmdir succeeds once the killed processes are reaped (they die with no grace period).
      await removeGroup(dir, () => write('cgroup.kill', '1'), 100);
    },
  };
}

function signalFreezer(method: FreezeMethod, rootPid: () => number | undefined): JailFreezer {
  let stopped: number[] = [];
  const signal = (pids: number[], s: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, s);
      } catch {
        /* exited */
      }
    }
  };
  const thaw = () => {
    signal(stopped, 'SIGCONT');
    stopped = [];
  };
  return {
    method,
    get frozen() {
      return stopped.length > 0;
    },
    freeze() {
      const root = rootPid();
      if (method !== 'signal' || !root || stopped.length) return;
      stopped = descendants(root);
      signal(stopped, 'SIGSTOP');
    },
    thaw,
    async close() {
      thaw();
    },
  };
}
