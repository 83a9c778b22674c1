/**
 * A standby browser's CPU weight. A standby launch (and the ready browser it makes, until a create
 * claims it) runs at a sixteenth of a session's CPU weight, so the refill a claim starts takes only
 * the CPU the sessions in use leave idle: run back to back on two cores, two refills at normal
 * weight tripled the claimed session's connect and first navigation (bench/connect-profile.ts;
 * docs/bench/results.md). A claim — or a create that adopts the launch under way — gives the group
 * the normal weight before the client gets the browser.
 *
 * cgroup v2: `cpu.weight` of the session's one group (memory-group.ts makes it; the engine's pids
 * group enables `cpu` in its subtree where the host delegates it). cgroup v1: a group of our own
 * in the `cpu` hierarchy (`cpu.shares`), below the engine's own, named `bd-cpu-<pid>-<session>`;
 * groups of dead engines are removed. Only root may move a jail into a group: elsewhere, and where
 * no cpu controller is usable, every browser runs at the normal weight.
 */
import fs from 'node:fs';
import path from 'node:path';
import { killListed, ownCgroupDir, removeGroup, sweepDeadGroups } from './cgroup-dirs.js';
import { jailUsersOn } from './jail-user.js';

const PREFIX = 'bd-cpu-';
/** Normal and background weights: v1 `cpu.shares` (default 1024), v2 `cpu.weight` (default 100). */
export const CPU_WEIGHTS = { 'cgroup-v1': { normal: 1024, background: 64 }, 'cgroup-v2': { normal: 100, background: 6 } } as const;

let probedV1: string | null | undefined;

/** The engine's own v1 `cpu` group where it may make groups with `cpu.shares` (root only), else null. */
function v1Base(): string | null {
  if (probedV1 !== undefined) return probedV1;
  probedV1 = null;
  if (!jailUsersOn()) return probedV1;
  const base = ownCgroupDir({ v1: 'cpu' });
  if (!base) return probedV1;
  sweepDeadGroups(base, PREFIX);
  const probe = path.join(base, `${PREFIX}${process.pid}-probe`);
  try {
    fs.mkdirSync(probe);
    try {
      if (fs.existsSync(path.join(probe, 'cpu.shares'))) probedV1 = base;
    } finally {
      fs.rmdirSync(probe);
    }
  } catch {
    /* not ours to make groups in */
  }
  return probedV1;
}

/** Removes the v1 cpu groups of engines that are gone (each engine start; the probe did it once per process). */
export function sweepDeadCpuGroups(): void {
  const base = v1Base();
  if (base) sweepDeadGroups(base, PREFIX);
}

export interface CpuGroup {
  readonly method: 'cgroup-v2' | 'cgroup-v1';
  /** v1: the `cgroup.procs` a jail's first process joins (jail-start.ts); v2: undefined (the session's one group holds it). */
  readonly procsFile?: string;
  /** Whether the group runs at the background weight now. */
  readonly background: boolean;
  setBackground(on: boolean): void;
  close(): Promise<void>;
}

/**
 * The session's CPU weight, starting in the background or not. `v2Group`: on cgroup v2 the
 * session's one group (its memory group), whose `cpu.weight` is set when the controller is there.
 * Undefined where no weight can be set.
 */
export function createCpuGroup(sessionId: string, background: boolean, v2Group?: string): CpuGroup | undefined {
  const write = (dir: string, file: string, v: number): boolean => {
    try {
      fs.writeFileSync(path.join(dir, file), String(v));
      return true;
    } catch {
      return false;
    }
  };
  const make = (method: CpuGroup['method'], dir: string, file: string, close: () => Promise<void>, procsFile?: string): CpuGroup | undefined => {
    const w = CPU_WEIGHTS[method];
    const group = {
      method,
      procsFile,
      background,
      setBackground(on: boolean) {
        if (on === group.background) return;
        if (write(dir, file, on ? w.background : w.normal)) group.background = on;
      },
      close,
    };
    if (background && !write(dir, file, w.background)) group.background = false;
    return group;
  };
  if (v2Group) {
    if (!fs.existsSync(path.join(v2Group, 'cpu.weight'))) return undefined;
    // The group itself goes with the memory group that it is.
    return make('cgroup-v2', v2Group, 'cpu.weight', async () => {});
  }
  const base = v1Base();
  if (!base) return undefined;
  const dir = path.join(base, `${PREFIX}${process.pid}-${sessionId}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch {
    return undefined;
  }
  const procs = path.join(dir, 'cgroup.procs');
  return make('cgroup-v1', dir, 'cpu.shares', () => removeGroup(dir, () => killListed(procs), 200), procs);
}
