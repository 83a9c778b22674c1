/**
 * The app jail: how a deployment's npm install, its discovery load and each invocation run in
 * bubblewrap. New user, pid, ipc, uts, cgroup and network namespaces, every capability dropped,
 * uid 1000 inside, the host's system dirs read-only with the usual masks, `--die-with-parent`,
 * a cleared environment, a private tmpfs `/tmp` (also HOME). The deployment's own directory is
 * shown at its host path — read-only, except for the install step that writes its
 * node_modules — and the engine's data dir, other deployments and everything else of the host
 * are absent. The engine's node_modules (public packages: the SDK, playwright-core, tsx,
 * undici) and the runner script come in read-only at their host paths, so the resolution
 * fallbacks keep working.
 * The network is the jail's own, with only `lo`: the command runs under the helper
 * (sandbox/app-jail-helper.mjs), whose loopback ports are the only ways out — an HTTP(S)
 * proxy piped to an egress proxy with the engine's egress policy (the same one browsers get),
 * and the engine's public URL piped to the engine (app-network.ts). So the operator's
 * `--egress-deny` holds for apps too, and nothing leaves without a proxy-aware client.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_PATH, SANDBOX_DIR, baseSandboxArgs, bwrapWithPrivateArgs, runtimeEnv, runtimeMount } from '../sandbox/bwrap.js';
import { engineAsset, engineAssetDir } from '../assets.js';
import type { EgressPolicy } from '../proxy-forwarder/egress-policy.js';
import { openAppNetwork, type AppNetwork } from './app-network.js';
import { claimJailUser, ensureTraversable, jailUsersOn, own, ownTree, shareTree } from '../sandbox/jail-user.js';
import { jailSpawn } from '../sandbox/jail-start.js';
import { createPidsGroup, nprocLimit } from '../sandbox/pids-group.js';
import { tenantsCpuGroup } from '../sandbox/cpu-group.js';
import { bindEngineAsset, jailVisible, reachableByOthers } from '../sandbox/jail-visible.js';

export interface AppJail {
  bwrap: string;
  /** Host paths masked inside (the data dir) should they lie under a bound system dir. */
  hide: string[];
  /** The engine's egress policy, applied to everything the app sends out. */
  policy: EgressPolicy;
  /** The engine's public URL (KERNEL_BASE_URL, the host of session URLs). */
  publicUrl: string;
}

export const APP_HOME = '/tmp';
const HELPER = `${SANDBOX_DIR}/app-jail-helper.mjs`;

/** Opens the host side of one app process's network; close it once the process has ended. */
export function openAppJailNetwork(jail: AppJail): Promise<AppNetwork> {
  return openAppNetwork({ policy: jail.policy, publicUrl: jail.publicUrl });
}

/**
 * How to start the jail (file, arguments, environment), ending with the helper's command line:
 * the caller appends its command and calls `cleanup` once the process has exited.
 * `node` is the JavaScript runtime's path inside. `dir` is the deployment; `writable` only for
 * the install step; `env` replaces the environment (HOME is the private /tmp); `channelFd` is
 * the engine's channel (a pipe of bwrap's, runner-channel.ts) that the command (not the helper) uses.
 * When the engine is root each app process runs as a host uid of its own (jail-user.ts), switched
 * to by the launch line (jail-start.ts, which also closes every fd but stdio and `channelFd`): the
 * install's owns the deployment while it runs and gives it back to root (readable by all, as the
 * invocations' uids read it) when it has ended. Each app process has a pids group of its own
 * (pids-group.ts, the per-session bound), removed by `cleanup` with whatever is left in it.
 */
export async function appJailArgs(
  jail: AppJail,
  o: { dir: string; writable: boolean; env: Record<string, string>; modules: string; net: AppNetwork; channelFd?: number },
): Promise<{ file: string; args: string[]; node: string; env: Record<string, string>; spawn: { uid?: number; gid?: number }; cleanup: () => Promise<void> }> {
  const claim = jailUsersOn() ? claimJailUser() : undefined;
  const user = claim?.user;
  let owned = false;
  const pids = createPidsGroup(`app-${randomUUID()}`);
  const giveBack = async (): Promise<void> => {
    await pids?.close();
    if (owned) await shareTree(o.dir);
    claim?.release();
  };
  try {
    if (user) {
      await ensureTraversable(
        o.dir,
        jail.hide.flatMap((h) => ancestorsWithin(o.dir, h)),
      );
      // Nothing of this deployment runs during its install: no jail can swap a directory under the walk.
      if (o.writable) {
        owned = true;
        await ownTree(user, o.dir);
      }
      // The network's sockets (a private dir of this process, app-network.ts) are its alone.
      for (let i = 0; i + 2 < o.net.binds.length; i += 3) {
        await own(user, o.net.binds[i + 1]);
        await fs.chmod(path.dirname(o.net.binds[i + 1]), 0o711);
      }
    }
    const a = await baseSandboxArgs({ hide: jail.hide });
    a.push('--uid', '1000', '--gid', '1000', '--tmpfs', '/tmp');
    const node = runtimeMount(a);
    a.push(o.writable ? '--bind' : '--ro-bind', o.dir, o.dir);
    a.push('--ro-bind', jailVisible(engineAssetDir('app-runtime')), engineAssetDir('app-runtime'));
    // The engine's node_modules is too big to copy (jail-visible.ts) and bwrap cannot bind an
    // fd it could not reach by path: an install the jail users cannot read is the operator's to move.
    if (user && !reachableByOthers(o.modules))
      throw new Error(
        `apps run as unprivileged users and cannot read the engine's packages at ${o.modules}: install the engine where other users can read it (e.g. /opt), or make its parent directories searchable (chmod o+x)`,
      );
    a.push('--ro-bind', o.modules, o.modules);
    bindEngineAsset(a, 'sandbox/app-jail-helper.mjs', HELPER);
    bindEngineAsset(a, 'sandbox/cdp-forwarder.mjs');
    // The runner imports the channel's framing relatively (../sandbox/): at its host path, beside app-runtime.
    bindEngineAsset(a, 'sandbox/frame-channel.mjs', engineAsset('sandbox/frame-channel.mjs'));
    a.push(...o.net.binds);
    a.push('--chdir', o.dir);
    a.push('--', node, HELPER, JSON.stringify({ ...o.net.spec, channelFd: o.channelFd }));
    // The app's KERNEL_API_KEY and its deployment's env_vars: on no command line, never bwrap's own
    // environment (bwrapWithPrivateArgs, with its --clearenv).
    const launch = await bwrapWithPrivateArgs(jail.bwrap, { PATH: DEFAULT_PATH, ...o.env, ...runtimeEnv(), HOME: APP_HOME }, a, user);
    const cleanup = async (): Promise<void> => {
      await launch.cleanup();
      await giveBack();
    };
    const run = jailSpawn(
      user,
      { procs: [pids?.procsFile, tenantsCpuGroup().procsFile], nproc: nprocLimit() },
      launch,
      o.channelFd === undefined ? 3 : o.channelFd + 1,
    );
    return { ...launch, file: run.file, args: run.args, node, spawn: run.as, cleanup };
  } catch (err) {
    // Never started: the uid goes back now, and a deployment taken for the install is root's again.
    await giveBack().catch(() => {});
    throw err;
  }
}

/** `dir`'s ancestors from `top` (included) down, when `dir` lies under `top`. */
function ancestorsWithin(dir: string, top: string): string[] {
  const out: string[] = [];
  for (let d = path.dirname(dir); d.startsWith(`${top}/`) || d === top; d = path.dirname(d)) {
    out.push(d);
    if (d === top) break;
  }
  return out;
}
