/**
 * The cgroup directory work the engine's per-session groups share (the freezer's
 * `bd-<pid>-<session>`, session/jail-freezer.ts; the memory group's `bd-mem-<pid>-<session>`,
 * memory-group.ts): where this process's own group is, sweeping the groups of engines that are
 * gone, and removing a group once what is left in it has been killed. A cgroup directory goes
 * with rmdir (its control files cannot be unlinked), and only once no process is in it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive } from './jail-user.js';

/**
 * `<mount>/<own group>` of this process in the cgroup v2 hierarchy, or in the v1 hierarchy
 * carrying `controller`; undefined when there is none (or it is mounted from a sub-group, whose
 * paths /proc does not give).
 */
export function ownCgroupDir(hierarchy: 'v2' | { v1: string }): string | undefined {
  try {
    const line = fs
      .readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => (hierarchy === 'v2' ? f[0] === '0' && f[1] === '' : f[1]?.split(',').includes(hierarchy.v1)));
    if (!line) return undefined;
    const mount = fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' '))
      .find((f) => {
        const type = f[f.indexOf('-') + 1];
        return hierarchy === 'v2' ? type === 'cgroup2' : type === 'cgroup' && (f[f.indexOf('-') + 3] ?? '').split(',').includes(hierarchy.v1);
      });
    if (!mount || mount[3] !== '/') return undefined;
    return path.join(mount[4], line.slice(2).join(':'));
  } catch {
    return undefined;
  }
}

/** Removes the empty groups `<prefix><pid>-…` below `base` whose engine (pid) is gone; a populated one stays. */
export function sweepDeadGroups(base: string, prefix: string): void {
  const named = new RegExp(`^${prefix}(\\d+)-`);
  try {
    for (const name of fs.readdirSync(base)) {
      const m = named.exec(name);
      if (!m || pidAlive(Number(m[1]))) continue;
      try {
        fs.rmdirSync(path.join(base, name));
      } catch {
        /* still populated */
      }
    }
  } catch {
    /* the group's directory cannot be listed */
  }
}

/**
 * Removes the group `dir`: `killLeft` ends what is still in it (cgroup.kill, or SIGKILL per
 * pid), then rmdir is retried while the kernel reaps them. Gives up after `tries` (10 ms apart).
 */
export async function removeGroup(dir: string, killLeft: () => void, tries: number): Promise<void> {
  for (let i = 0; i < tries; i++) {
    killLeft();
    try {
      fs.rmdirSync(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** SIGKILL to every process listed in a (v1) group's `cgroup.procs` (none when it is gone). */
export function killListed(procsFile: string): void {
  let pids: string[] = [];
  try {
    pids = fs.readFileSync(procsFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* exited */
    }
  }
}
