/**
 * The jail for a session's helper programs — the recorder's ffmpeg and a headful session's
 * Xvfb. They chew on what a tenant controls (screencast frames of its pages, its X clients), so
 * they run like the browser does: new namespaces including the network (nothing to reach), every
 * capability dropped, system dirs read-only with the usual masks, the engine's data dir hidden,
 * `--die-with-parent`, a cleared environment, and write access to exactly one directory, bound at
 * the same absolute path so the helper's command line does not change.
 */
import { DEFAULT_PATH, baseSandboxArgs } from './bwrap.js';
import { spawnAs, type JailUser } from './jail-user.js';

export interface HelperJail {
  /** The bwrap binary. */
  file: string;
  /** bwrap's arguments up to and including `--`; the helper's own command line follows. */
  prefix: string[];
  /** `spawn` options: the session's jail user when the engine is root (jail-user.ts). */
  spawn: { uid?: number; gid?: number };
}

/**
 * `writable` is bound read-write at its own path; `binds` maps further host dirs (read-write)
 * to paths inside (Xvfb's socket dir to `/tmp/.X11-unix`).
 */
export async function helperJail(
  bwrap: string,
  opts: { writable?: string; binds?: Array<[string, string]>; hide: string[]; user?: JailUser },
): Promise<HelperJail> {
  const a = await baseSandboxArgs({ hide: opts.hide });
  a.push('--tmpfs', '/tmp');
  if (opts.writable) a.push('--bind', opts.writable, opts.writable);
  for (const [host, inside] of opts.binds ?? []) a.push('--bind', host, inside);
  a.push('--clearenv', '--setenv', 'PATH', DEFAULT_PATH, '--setenv', 'LANG', 'C.UTF-8', '--');
  return { file: bwrap, prefix: a, spawn: spawnAs(opts.user) };
}
