/**
 * The first process of every jail: a shell that runs before `setpriv` → `bwrap` and becomes
 * them (exec, one pid throughout, no extra process). It
 *  - closes every file descriptor but the ones the spawn gives (0 … fds-1: stdio, the runner's
 *    IPC and `--args` pipes, Xvfb's display pipe): whatever launched the engine may have left it
 *    descriptors without close-on-exec (`exec 200<secret` in a launcher script, an Electron
 *    parent's), which Node's spawn and bwrap both pass on to every child;
 *  - joins the session's cgroups (memory, pids: their `cgroup.procs` files) as root, so
 *    everything the jail forks afterwards is inside — no window outside its limits;
 *  - sets RLIMIT_NPROC where no cgroup bounds the jail's tasks (pids-group.ts `nprocLimit`).
 * bash, not dash: dash's redirections only name descriptors 0–9.
 */
import fs from 'node:fs';
import { commandAs, type JailUser } from './jail-user.js';

/** What every jail of a session (or an app process) starts in. */
export interface JailGroups {
  /** `cgroup.procs` files to join (the session's memory and pids groups); absent ones skipped. */
  readonly procs: ReadonlyArray<string | undefined>;
  /** RLIMIT_NPROC to set where no cgroup bounds the tasks. */
  readonly nproc?: number;
}

/** By absolute path: the spawner's PATH is not trusted to find it. */
const BASH = ['/bin/bash', '/usr/bin/bash'].find((p) => fs.existsSync(p));

/** The shell script (pure): `fds` kept, then `files` ($1…) joined, `nproc` set, then `exec` of the rest. */
export function jailStartScript(fds: number, files: number, nproc: number | undefined, bash = true): string {
  // Without bash (no Linux distribution we know ships none), dash can close 3–9 only. Without
  // /proc (macOS) the glob stays literal: only numbers are descriptors.
  const close = bash
    ? `for f in /proc/$$/fd/*; do n=\${f##*/}; case $n in ''|*[!0-9]*) continue;; esac; [ "$n" -lt ${fds} ] || exec {n}<&-; done`
    : `for n in 3 4 5 6 7 8 9; do [ "$n" -lt ${fds} ] || eval "exec $n<&-"; done`;
  const steps = [close];
  for (let i = 1; i <= files; i++) steps.push(`echo $$ > "$${i}"`);
  if (files) steps.push(`shift ${files}`);
  // A hard limit already lower (a non-root engine's) stays.
  if (nproc !== undefined) steps.push(`{ ulimit -u ${Math.floor(nproc)} 2>/dev/null || :; }`);
  return `${steps.join(' && ')} && exec "$@"`;
}

/**
 * The command line that starts `cmd` as the first process of a jail (see above): `fds` is how
 * many descriptors the spawn hands it (3 for stdio). `cmd` must do its own uid switch
 * (`commandAs`): joining a group needs root.
 */
export function jailStart(groups: JailGroups | undefined, fds: number, cmd: { file: string; args: string[] }): { file: string; args: string[] } {
  const files = (groups?.procs ?? []).filter((f): f is string => !!f);
  const script = jailStartScript(fds, files.length, groups?.nproc, !!BASH);
  return { file: BASH ?? '/bin/sh', args: [...(BASH ? ['--norc', '--noprofile'] : []), '-c', script, 'jail-start', ...files, cmd.file, ...cmd.args] };
}

/**
 * What to `spawn` for a jail started as `user` in `groups`: the first process above, then
 * setpriv (the uid switch, when the engine is root), then `cmd`. `fds`: descriptors the spawn gives.
 */
export function jailSpawn(
  user: JailUser | undefined,
  groups: JailGroups | undefined,
  cmd: { file: string; args: string[] },
  fds = 3,
): { file: string; args: string[]; as: { uid?: number; gid?: number } } {
  return { ...jailStart(groups, fds, commandAs(user, cmd.file, cmd.args)), as: {} };
}
