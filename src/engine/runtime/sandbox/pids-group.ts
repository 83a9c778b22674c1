/**
 * Bounds the tasks (processes and threads) of every jail, so no tenant can exhaust the host's
 * pid space (a fork bomb, 1,500 threads): one `pids` cgroup per session and per app process,
 * all inside one group per engine, so every tenant together stays far below `pid_max`. A
 * tenant at its limit gets EAGAIN from fork/clone; the engine notices through the group's
 * `pids.events` (`limitHits`) and says so in the session's telemetry and log.
 *  - cgroup v1 (hybrid hosts): `<pids hierarchy>/<own group>/bd-pids-<pid>/<session>`, entered
 *    by each jail's first process beside the memory group (jail-start.ts).
 *  - cgroup v2: the same engine group below the engine's own; a process is in one v2 group
 *    only, so the session's memory group lives inside it (memory-group.ts asks `pidsParentV2`)
 *    and its `pids.max` is written there.
 *  - no usable pids controller (not root, none mounted): RLIMIT_NPROC in the jail's launch line
 *    (`ulimit -u`). It counts per real uid: per session when the engine is root (every session
 *    has its own uid, jail-user.ts), else the engine user's processes together (the engine's
 *    bound, no fairness between sessions).
 * Probed once per engine process; groups of dead engines are removed at the probe.
 */
import fs from 'node:fs';
import path from 'node:path';
import { killListed, ownCgroupDir, removeGroup } from './cgroup-dirs.js';
import { jailUsersOn, pidAlive } from './jail-user.js';

export type PidsMethod = 'cgroup-v2' | 'cgroup-v1' | 'rlimit' | 'none';

export interface PidsLimits {
  /** Tasks one session (all its jails) or one app process may have. */
  perSession: number;
  /** Tasks every jail of this engine may have together. */
  perEngine: number;
}

const PREFIX = 'bd-pids-';

/**
 * Defaults for a host whose pid space is `pidMax`. A session's jails measured (pids.current of
 * its group) ~95 tasks idle, headless or headful (Chromium's processes and their threads, the
 * socat doors, Xvfb), and ~190 busy (seven tabs with a worker and iframes, a Playwright executor,
 * a session process): 2048 leaves ten times that. All tenants together get a quarter of the pid
 * space (at most 65536; 8192 for Linux's default pid_max of 32768), so the host keeps the rest.
 */
export function defaultPidsLimits(pidMax: number): PidsLimits {
  const perEngine = Math.max(1024, Math.min(65_536, Math.floor(pidMax / 4)));
  return { perSession: Math.min(2048, perEngine), perEngine };
}

/** The kernel's pid space (`/proc/sys/kernel/pid_max`), 32768 when it cannot be read. */
export function hostPidMax(): number {
  try {
    const n = Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : 32_768;
  } catch {
    return 32_768;
  }
}

/** Checks a configuration against the host (`perSession` ≤ `perEngine` < `pidMax`). */
export function checkPidsLimits(l: PidsLimits, pidMax: number): PidsLimits {
  for (const [flag, v] of [
    ['--pids-per-session', l.perSession],
    ['--pids-per-engine', l.perEngine],
  ] as const)
    if (!Number.isInteger(v) || v < 16) throw new Error(`${flag} ${v} is not a number of tasks (an integer ≥ 16)`);
  if (l.perSession > l.perEngine) throw new Error(`--pids-per-session ${l.perSession} exceeds --pids-per-engine ${l.perEngine}`);
  if (l.perEngine >= pidMax) throw new Error(`--pids-per-engine ${l.perEngine} is not below the host's pid space (pid_max ${pidMax})`);
  return l;
}

/** The `max` counter of a `pids.events` file's text (fork/clone refused at the limit). */
export function maxEvents(text: string): number {
  const m = /^max (\d+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}

let limits: PidsLimits | undefined;
let probed: { method: PidsMethod; engineDir?: string } | undefined;

/** The limits in force (engine start sets them; the defaults for this host until then). */
export function pidsLimits(): PidsLimits {
  limits ??= defaultPidsLimits(hostPidMax());
  return limits;
}

/** Sets the limits (engine start, from config; checked); returns a function restoring the previous ones. */
export function configurePids(o: Partial<PidsLimits>): () => void {
  const prev = limits;
  const d = defaultPidsLimits(hostPidMax());
  const perEngine = o.perEngine ?? Math.max(d.perEngine, o.perSession ?? 0);
  const next = checkPidsLimits({ perSession: o.perSession ?? Math.min(d.perSession, perEngine), perEngine }, hostPidMax());
  limits = next;
  // A group made for other limits (a test engine before this one) takes the new engine bound.
  if (probed?.engineDir) writeFile(probed.engineDir, 'pids.max', String(next.perEngine));
  return () => {
    limits = prev;
    if (prev && probed?.engineDir) writeFile(probed.engineDir, 'pids.max', String(prev.perEngine));
  };
}

function writeFile(dir: string, file: string, v: string): boolean {
  try {
    fs.writeFileSync(path.join(dir, file), v);
    return true;
  } catch {
    return false;
  }
}

/** Removes `<base>/bd-pids-<pid>` trees whose engine is gone (children first; a populated group stays). */
function sweepDeadEngines(base: string): void {
  const named = new RegExp(`^${PREFIX}(\\d+)$`);
  let names: string[] = [];
  try {
    names = fs.readdirSync(base);
  } catch {
    return;
  }
  const rmTree = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) rmTree(path.join(dir, e.name));
    fs.rmdirSync(dir);
  };
  for (const name of names) {
    const m = named.exec(name);
    if (!m || pidAlive(Number(m[1]))) continue;
    try {
      rmTree(path.join(base, name));
    } catch {
      /* still populated */
    }
  }
}

/** Makes this engine's group below `base`, limited to the engine bound; undefined when the controller is not there. */
function engineGroup(base: string, v2: boolean): string | undefined {
  sweepDeadEngines(base);
  const dir = path.join(base, `${PREFIX}${process.pid}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.existsSync(path.join(dir, 'pids.max')) || !writeFile(dir, 'pids.max', String(pidsLimits().perEngine))) {
      fs.rmdirSync(dir);
      return undefined;
    }
    // v2: the session groups inside carry their memory limit too (memory-group.ts); best effort.
    if (v2) writeFile(dir, 'cgroup.subtree_control', fs.existsSync(path.join(dir, 'memory.max')) ? '+pids +memory' : '+pids');
    return dir;
  } catch {
    return undefined;
  }
}

/** How this engine bounds a jail's tasks (learned once; leftovers of dead engines removed). */
export function pidsMethod(): { method: PidsMethod; engineDir?: string } {
  if (probed) return probed;
  probed = { method: process.platform === 'linux' ? 'rlimit' : 'none' };
  // Only root may move a jail (another uid's processes) into a group and write its limit.
  if (!jailUsersOn()) return probed;
  const v1 = ownCgroupDir({ v1: 'pids' });
  const v1Dir = v1 && engineGroup(v1, false);
  if (v1Dir) return (probed = { method: 'cgroup-v1', engineDir: v1Dir });
  const v2 = ownCgroupDir('v2');
  const v2Dir = v2 && engineGroup(v2, true);
  if (v2Dir) probed = { method: 'cgroup-v2', engineDir: v2Dir };
  return probed;
}

/**
 * Removes the groups of engines that are gone, beside this engine's. The probe does it once per
 * process; every engine start does it again, since one process may start several engines (the
 * desktop app restarting its engine, a test worker running file after file).
 */
export function sweepDeadEngineGroups(): void {
  const dir = pidsMethod().engineDir;
  if (dir) sweepDeadEngines(path.dirname(dir));
}

/** cgroup v2: the group session groups are made in (the memory group too), else undefined. */
export function pidsParentV2(): string | undefined {
  const p = pidsMethod();
  return p.method === 'cgroup-v2' ? p.engineDir : undefined;
}

/** What a jail's launch line applies where cgroups bound nothing: RLIMIT_NPROC (jail-start.ts). */
export function nprocLimit(): number | undefined {
  if (pidsMethod().method !== 'rlimit') return undefined;
  // Counted per real uid: a root engine's sessions each have their own; otherwise all share the engine's.
  return jailUsersOn() ? pidsLimits().perSession : pidsLimits().perEngine;
}

export interface PidsGroup {
  readonly dir: string;
  /** The `cgroup.procs` file a launch writes its first process into (v1; on v2 the memory group's). */
  readonly procsFile?: string;
  /** How many forks/clones the limit refused so far. */
  limitHits(): number;
  /** Kills whatever is left in the group and removes it (v1: only a group it made). */
  close(): Promise<void>;
}

/**
 * The pids group of a session or an app process (`name`), limited to the per-session bound; or
 * undefined where cgroups bound nothing. `v2Group`: on cgroup v2, the session's one group (its
 * memory group, made inside `pidsParentV2()`) to limit instead of a group of its own.
 */
export function createPidsGroup(name: string, v2Group?: string): PidsGroup | undefined {
  const { method, engineDir } = pidsMethod();
  if (!engineDir || (method !== 'cgroup-v1' && method !== 'cgroup-v2')) return undefined;
  const own = method === 'cgroup-v1' || !v2Group;
  const dir = own ? path.join(engineDir, name) : v2Group;
  if (own) fs.mkdirSync(dir, { recursive: true });
  if (!writeFile(dir, 'pids.max', String(pidsLimits().perSession))) {
    if (own) fs.rmdirSync(dir);
    return undefined;
  }
  const events = ['pids.events.local', 'pids.events'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
  return {
    dir,
    procsFile: own ? path.join(dir, 'cgroup.procs') : undefined,
    limitHits() {
      try {
        return events ? maxEvents(fs.readFileSync(events, 'utf8')) : 0;
      } catch {
        return 0;
      }
    },
    async close() {
      if (!own) return;
      const procs = path.join(dir, 'cgroup.procs');
      await removeGroup(dir, () => (method === 'cgroup-v2' ? writeFile(dir, 'cgroup.kill', '1') : killListed(procs)), 200);
    },
  };
}
