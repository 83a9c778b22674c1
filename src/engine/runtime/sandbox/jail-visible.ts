/**
 * Files of the engine's own install that jails bind read-only — its child scripts, playwright-core,
 * chromium-bidi — must be reachable by a jail's bwrap, which runs as the session's unprivileged
 * user when the engine is root (jail-user.ts). A checkout under `/root` (0700) or a bundle built
 * into a private temp dir is not: bwrap would fail on the bind source. Rather than open the
 * operator's directories to every host user, such a source is copied once per engine process
 * into a root-owned, world-searchable directory under `/run` (a tmpfs: nothing survives a reboot),
 * and the jail binds the copy. Copies of an engine that died are swept by the next one; the
 * engine's own are removed when its process exits.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { engineAsset, type EngineAssetName } from '../assets.js';
import { SANDBOX_DIR } from './bwrap.js';
import { jailUsersOn, pidAlive } from './jail-user.js';

const STAGE_ROOT = process.env.BROWSERDECK_JAIL_VISIBLE_DIR ?? '/run/browserdeck-jail-visible';
const staged = new Map<string, string>();
let ownDir: string | undefined;

/** Whether a user who is neither owner nor in the group can reach `p` (search above, read it). */
export function reachableByOthers(p: string): boolean {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return true; // a missing source is the caller's error to report, not ours
  }
  for (let d = path.dirname(real); ; d = path.dirname(d)) {
    if (!(fs.statSync(d).mode & 0o001)) return false;
    if (d === '/') break;
  }
  const st = fs.statSync(real);
  return st.isDirectory() ? (st.mode & 0o005) === 0o005 : (st.mode & 0o004) !== 0;
}

/** The path a jail should bind for `hostPath`: itself when jail users reach it, else a copy. */
export function jailVisible(hostPath: string): string {
  if (!jailUsersOn() || reachableByOthers(hostPath)) return hostPath;
  const real = fs.realpathSync(hostPath);
  const known = staged.get(real);
  if (known) return known;
  const dest = path.join(stageDir(), createHash('sha256').update(real).digest('hex').slice(0, 16), path.basename(real));
  fs.cpSync(real, dest, { recursive: true, dereference: true });
  openUp(dest);
  staged.set(real, dest);
  return dest;
}

/** Binds the engine's own file `asset` (assets.ts) read-only at `inside` (its name under SANDBOX_DIR by default), as jails can reach it. */
export function bindEngineAsset(a: string[], asset: EngineAssetName, inside = `${SANDBOX_DIR}/${path.basename(asset)}`): void {
  a.push('--ro-bind', jailVisible(engineAsset(asset)), inside);
}

function stageDir(): string {
  if (ownDir) return ownDir;
  fs.mkdirSync(STAGE_ROOT, { recursive: true, mode: 0o755 });
  // Every jail runs what is copied here: a directory someone else owns or may write could swap it.
  const st = fs.lstatSync(STAGE_ROOT);
  if (!st.isDirectory() || st.uid !== 0) throw new Error(`${STAGE_ROOT} is not a root-owned directory`);
  fs.chmodSync(STAGE_ROOT, 0o755);
  for (const name of fs.readdirSync(STAGE_ROOT))
    if (/^\d+$/.test(name) && !pidAlive(Number(name))) fs.rmSync(path.join(STAGE_ROOT, name), { recursive: true, force: true });
  ownDir = path.join(STAGE_ROOT, String(process.pid));
  fs.rmSync(ownDir, { recursive: true, force: true });
  fs.mkdirSync(ownDir, { mode: 0o755 });
  process.once('exit', () => fs.rmSync(ownDir!, { recursive: true, force: true }));
  return ownDir;
}

/** Copies keep their modes: give every directory and file read (and search) to all, nothing more. */
function openUp(p: string): void {
  const st = fs.lstatSync(p);
  if (st.isSymbolicLink()) return;
  fs.chmodSync(p, (st.mode & 0o755) | (st.isDirectory() || st.mode & 0o100 ? 0o755 : 0o644));
  if (st.isDirectory()) for (const e of fs.readdirSync(p)) openUp(path.join(p, e));
}
