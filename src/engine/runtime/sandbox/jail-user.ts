/**
 * The host user a jail runs as. bwrap is not setuid: started by root, its `--uid 1000` maps
 * the inside uid onto host uid 0, so a jail of a root engine is host root with its capabilities
 * dropped — and root-owned files the mask list misses (`/etc/letsencrypt/…/privkey.pem`, an
 * operator's 0600 env file) stay readable from a page or a process. So when the engine is root,
 * every session gets its own unprivileged host uid (gid the same number) from an operator range
 * (`--jail-uid-base`, `--jail-uid-count`; default 200000 + 65536), and every jail of that session
 * is spawned as it. The uid is recorded as the owner of the session root (only root can change
 * that), so anything that starts a jail for a session — or an engine restarted over an old
 * session dir — reads it back with `jailUserOf`. Claims are host-wide (one file per uid under
 * `/run/browserdeck-jail-uids`, holding the claiming engine's pid), so two engines on one host
 * never hand out the same uid; a claim of a dead engine is taken over. Apps claim one per
 * process the same way. When the engine is not root (the desktop app) nothing changes: jails run
 * as the engine's own user, as before.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface JailUser {
  uid: number;
  gid: number;
}

export interface JailUidRange {
  base: number;
  count: number;
}

export const DEFAULT_JAIL_UID_RANGE: JailUidRange = { base: 200_000, count: 65_536 };
const CLAIMS_DIR = '/run/browserdeck-jail-uids';
/** util-linux's, by absolute path: the spawner's PATH is not trusted to find it. */
export const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p)) ?? '/usr/bin/setpriv';

let range: JailUidRange = DEFAULT_JAIL_UID_RANGE;
/** Where the next search starts (spreads claims; a freed uid is not reused at once). */
let cursor = 0;

/** Whether jails must be spawned as a jail user: the engine is root on Linux. */
export function jailUsersOn(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

/** Sets the range (engine start, from config); returns a function restoring the previous one. */
export function configureJailUids(r: Partial<JailUidRange>): () => void {
  const prev = range;
  const next = { base: r.base ?? range.base, count: r.count ?? range.count };
  if (!Number.isInteger(next.base) || !Number.isInteger(next.count) || next.base < 1000 || next.count < 1 || next.base + next.count > 0xfffffffe)
    throw new Error(`jail uid range ${next.base}+${next.count} is not a range of unprivileged uids (base ≥ 1000)`);
  range = next;
  return () => {
    range = prev;
  };
}

/** Whether process `pid` exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function claimsDir(): string {
  fs.mkdirSync(CLAIMS_DIR, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(CLAIMS_DIR);
  // Anyone else's directory there could hand two engines the same uid.
  if (!st.isDirectory() || st.uid !== 0 || (st.mode & 0o022) !== 0) throw new Error(`${CLAIMS_DIR} is not a root-owned private directory`);
  return CLAIMS_DIR;
}

function tryClaim(file: string): boolean {
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const owner = Number(fs.readFileSync(file, 'utf8').trim() || '0');
  if (owner > 0 && pidAlive(owner)) return false;
  // Left by an engine that died: take it over (a racing taker loses at the exclusive create).
  fs.rmSync(file, { force: true });
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** A claimed jail user, held until `release`. */
export interface ClaimedJailUser {
  user: JailUser;
  release(): void;
}

/** Claims a free uid of the range host-wide; throws when every one is taken. */
export function claimJailUser(): ClaimedJailUser {
  const dir = claimsDir();
  for (let i = 0; i < range.count; i++) {
    const uid = range.base + ((cursor + i) % range.count);
    const file = path.join(dir, String(uid));
    if (!tryClaim(file)) continue;
    cursor = (cursor + i + 1) % range.count;
    let held = true;
    return {
      user: { uid, gid: uid },
      release: () => {
        if (!held) return;
        held = false;
        fs.rmSync(file, { force: true });
      },
    };
  }
  throw new Error(`every jail uid of ${range.base}…${range.base + range.count - 1} is in use`);
}

/**
 * The jail user recorded as the owner of `dir` (a session root), or undefined when jails run as
 * the engine's user. Fails closed: a root-owned dir means no jail user was assigned, and a jail
 * started anyway would be host root.
 */
export function jailUserOf(dir: string): JailUser | undefined {
  if (!jailUsersOn()) return undefined;
  const st = fs.statSync(dir);
  if (st.uid === 0) throw new Error(`${dir} has no jail user (it is owned by root)`);
  return { uid: st.uid, gid: st.gid };
}

/** Like `jailUserOf`, but undefined for a session without a jail user (an unjailed engine's). */
export function recordedJailUser(dir: string): JailUser | undefined {
  if (!jailUsersOn()) return undefined;
  const st = fs.statSync(dir);
  return st.uid === 0 ? undefined : { uid: st.uid, gid: st.gid };
}

/** `spawn` options that start a child as `user` (Node drops the supplementary groups too). */
export function spawnAs(user: JailUser | undefined): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}

/**
 * The command line that runs `file args` as `user` for spawners without a clean uid switch
 * (node-pty keeps root's supplementary groups): util-linux `setpriv`, which execs in place.
 */
export function commandAs(user: JailUser | undefined, file: string, args: string[]): { file: string; args: string[] } {
  if (!user) return { file, args };
  return { file: SETPRIV, args: ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', file, ...args] };
}

/** Gives each of `paths` (not following links) to `user`; nothing without one. */
export async function own(user: JailUser | undefined, ...paths: string[]): Promise<void> {
  if (!user) return;
  for (const p of paths) await fsp.lchown(p, user.uid, user.gid);
}

/**
 * Gives a whole tree to `user` without following links. Only for trees no jail can change
 * meanwhile (before a session's first launch, or engine-written read-only ones): a jail
 * swapping a directory for a link mid-walk could otherwise steer the walk.
 */
export async function ownTree(user: JailUser | undefined, dir: string): Promise<void> {
  if (!user) return;
  const st = await fsp.lstat(dir).catch(() => null);
  if (!st) return;
  await fsp.lchown(dir, user.uid, user.gid);
  if (!st.isDirectory()) return;
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await ownTree(user, p);
    else await fsp.lchown(p, user.uid, user.gid);
  }
}

/**
 * Gives a tree back to root after a jail user wrote it (an app's install, once it has ended),
 * readable and searchable by all: other jail users read it through read-only binds.
 */
export async function shareTree(dir: string): Promise<void> {
  const st = await fsp.lstat(dir).catch(() => null);
  if (!st || st.isSymbolicLink()) return;
  await fsp.lchown(dir, 0, 0);
  // chmod drops setuid/setgid bits after a chown; they have no business here anyway.
  await fsp.chmod(dir, (st.mode & 0o777) | (st.isDirectory() ? 0o005 : 0o004) | (st.mode & 0o100 ? 0o001 : 0));
  if (!st.isDirectory()) return;
  for (const e of await fsp.readdir(dir)) await shareTree(path.join(dir, e));
}

/**
 * bwrap runs as the jail user and must reach its bind sources: every directory above `dir` must
 * be searchable by others. `own` (the engine's data dir and its `sessions`…) get o+x added —
 * search only, no listing; anything further up that is closed (a data dir under `/root`) is an
 * error naming it.
 */
export async function ensureTraversable(dir: string, ownDirs: string[]): Promise<void> {
  for (let d = path.dirname(path.resolve(dir)); ; d = path.dirname(d)) {
    const st = await fsp.stat(d);
    if (!(st.mode & 0o001)) {
      if (!ownDirs.includes(d))
        throw new Error(`jails run as unprivileged users and cannot reach ${dir}: ${d} is not searchable by others (chmod o+x, or move the data dir)`);
      await fsp.chmod(d, (st.mode & 0o7777) | 0o001);
    }
    if (d === '/') break;
  }
}
