/**
 * The jail for a session's helper programs — the recorder's ffmpeg and a headful session's
 * Xvfb. They chew on what a tenant controls (screencast frames of its pages, its X clients), so
 * they run like the browser does: new namespaces including the network (nothing to reach), every
 * capability dropped, system dirs read-only with the usual masks, the engine's data dir hidden,
 * `--die-with-parent`, a cleared environment, and write access to exactly one directory, bound at
 * the same absolute path so the helper's command line does not change.
 */
import { DEFAULT_PATH, baseSandboxArgs } from './bwrap.js';
import { jailSpawn, type JailGroups } from './jail-start.js';
import type { JailUser } from './jail-user.js';

export interface HelperJail {
  /** The jail's first process (jail-start.ts), which becomes setpriv and bwrap. */
  file: string;
  /** Its arguments up to and including bwrap's `--`; the helper's own command line follows. */
  prefix: string[];
  /** `spawn` options (none: the launch line switches to the session's jail user itself). */
  spawn: { uid?: number; gid?: number };
}

/**
 * `writable` is bound read-write at its own path; `binds` maps further host dirs (read-write)
 * to paths inside (Xvfb's socket dir to `/tmp/.X11-unix`). `groups`: the session's (memory,
 * pids); `fds`: how many descriptors the spawn gives it (3: stdio).
 */
export async function helperJail(
  bwrap: string,
  opts: { writable?: string; binds?: Array<[string, string]>; hide: string[]; user?: JailUser; groups?: JailGroups; fds?: number },
): Promise<HelperJail> {
  const a = await baseSandboxArgs({ hide: opts.hide });
  a.push('--tmpfs', '/tmp');
  if (opts.writable) a.push('--bind', opts.writable, opts.writable);
  for (const [host, inside] of opts.binds ?? []) a.push('--bind', host, inside);
  a.push('--clearenv', '--setenv', 'PATH', DEFAULT_PATH, '--setenv', 'LANG', 'C.UTF-8', '--');
  const run = jailSpawn(opts.user, opts.groups, { file: bwrap, args: a }, opts.fds ?? 3);
  return { file: run.file, prefix: run.args, spawn: run.as };
}
