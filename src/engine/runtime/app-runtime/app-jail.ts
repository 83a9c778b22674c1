/**
 * The app jail: how a deployment's npm install, its discovery load and each invocation run in
 * bubblewrap. New user, pid, ipc, uts and cgroup namespaces, every capability dropped, uid 1000
 * inside, the host's system dirs read-only with the usual masks, `--die-with-parent`, a cleared
 * environment, a private tmpfs `/tmp` (also HOME). The deployment's own directory is shown at
 * its host path — read-only, except for the install step that writes its node_modules — and
 * the engine's data dir, other deployments and everything else of the host are absent. The
 * engine's node_modules (public packages: the SDK, playwright-core, tsx) and the runner script
 * come in read-only at their host paths, so the resolution fallbacks keep working.
 * Apps share the host's network: they must reach the engine API (KERNEL_BASE_URL) and the
 * sessions they create; the browsers' egress policy is not applied to them.
 */
import { DEFAULT_PATH, baseSandboxArgs, runtimeEnv, runtimeMount } from '../sandbox/bwrap.js';
import { engineAssetDir } from '../assets.js';

export interface AppJail {
  bwrap: string;
  /** Host paths masked inside (the data dir) should they lie under a bound system dir. */
  hide: string[];
}

export const APP_HOME = '/tmp';

/**
 * bwrap's arguments up to `--` and the JavaScript runtime's path inside. `dir` is the
 * deployment; `writable` only for the install step; `env` replaces the environment (HOME is
 * the private /tmp).
 */
export async function appJailArgs(jail: AppJail, o: { dir: string; writable: boolean; env: Record<string, string>; modules: string }): Promise<{ args: string[]; node: string }> {
  const a = await baseSandboxArgs({ hide: jail.hide });
  a.push('--share-net', '--uid', '1000', '--gid', '1000', '--tmpfs', '/tmp');
  const node = runtimeMount(a);
  a.push(o.writable ? '--bind' : '--ro-bind', o.dir, o.dir);
  a.push('--ro-bind', engineAssetDir('app-runtime'), engineAssetDir('app-runtime'), '--ro-bind', o.modules, o.modules);
  a.push('--chdir', o.dir, '--clearenv');
  const env = { PATH: DEFAULT_PATH, ...o.env, ...runtimeEnv(), HOME: APP_HOME };
  for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
  a.push('--');
  return { args: a, node };
}
