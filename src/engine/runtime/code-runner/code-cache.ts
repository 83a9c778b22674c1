/**
 * Where the engine keeps the V8 code cache of playwright-core's bundles (bundle-code-cache.mjs),
 * and making it: once per engine process, by a child of the runners' Node with their exact flags
 * (make-code-cache.mjs), the first time a runner starts. Until it is there (a second or so), runners
 * start without it; a failure to make it only leaves them slower, and is kept for playwrightCodeCacheStatus().
 *
 * The cache is code V8 runs: it lives in a directory only the engine's user may write —
 * `$XDG_CACHE_HOME/browserdeck/v8` (default `~/.cache`), or BROWSERDECK_CODE_CACHE_DIR — checked
 * before use, and jails bind it read-only. No tenant input goes into it: the child loads the
 * engine's own playwright-core and nothing else. Its name is a hash of the Node binary, the flags and
 * the bundles' identities (keyOf), so another version never reads it;
 * caches of other versions left beside it are removed after a day unused.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { childNode, engineAsset } from '../assets.js';
import { BUNDLES, cacheFileOf } from './bundle-code-cache.mjs';

const STALE_MS = 24 * 3600_000;
/** The making child takes about a second; one that hangs is killed, and runners go on without a cache. */
const MAKE_TIMEOUT_MS = 60_000;
/** What the making child may print (its error) that we keep. */
const STDERR_KEEP = 2048;

type State = { dir: string; state: 'making' | 'ready' | 'failed'; error?: string };
let current: State | undefined;

function cacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.BROWSERDECK_CODE_CACHE_DIR) return env.BROWSERDECK_CODE_CACHE_DIR;
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'browserdeck', 'v8');
}

/**
 * The files' identities (path, size, mtime, inode), not their bytes: reading 7 MB to hash them held
 * the event loop of the first runner start. V8 checks the source's length itself; a reinstalled
 * package or Node gets new mtimes and inodes.
 */
function keyOf(pwDir: string, flags: readonly string[]): string {
  const files = [childNode().path, ...BUNDLES.map((b) => path.join(pwDir, 'lib', b))];
  const ids = files.map((f) => {
    const st = fs.statSync(f);
    return [f, st.size, st.mtimeMs, st.ino];
  });
  return createHash('sha256')
    .update(JSON.stringify([ids, flags]))
    .digest('hex')
    .slice(0, 24);
}

const complete = (dir: string) => BUNDLES.every((b) => fs.existsSync(cacheFileOf(dir, b)));

/**
 * Creates the missing directories of `dir` one level at a time: Node's `mkdirSync(…, { recursive })`
 * never returns for a path under /proc (measured on Node 20: a configured cache dir there hung the engine).
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      // Another engine process made it meanwhile (the cache is shared by all of this user's).
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** A directory of ours that nobody else can write into (the cache in it is code). */
function ownPrivateDir(dir: string): void {
  makeDirs(dir);
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || st.mode & 0o022) throw new Error(`${dir} is not a directory only this user can write`);
}

/** A cache directory's name (keyOf): sweeping touches nothing else, whatever BROWSERDECK_CODE_CACHE_DIR names. */
const KEY_NAME = /^[0-9a-f]{24}$/;

function sweepStale(root: string, keep: string): void {
  for (const name of fs.readdirSync(root)) {
    if (!KEY_NAME.test(name)) continue;
    const p = path.join(root, name);
    if (p !== keep && Date.now() - fs.statSync(p).mtimeMs > STALE_MS) fs.rmSync(p, { recursive: true, force: true });
  }
}

function make(state: State, pwDir: string, flags: readonly string[]): void {
  const fail = (error: string) => Object.assign(state, { state: 'failed', error });
  let child;
  try {
    ownPrivateDir(path.dirname(state.dir));
    ownPrivateDir(state.dir);
    sweepStale(path.dirname(state.dir), state.dir);
    const node = childNode();
    child = spawn(node.path, [...flags, engineAsset('code-runner/make-code-cache.mjs'), path.join(pwDir, 'index.js'), state.dir], {
      env: { ...node.env, PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
    return;
  }
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(0, STDERR_KEEP)));
  child.on('error', (err) => fail(err.message));
  const timer = setTimeout(() => child.kill('SIGKILL'), MAKE_TIMEOUT_MS).unref();
  child.on('exit', (code, signal) => {
    clearTimeout(timer);
    if (state.state !== 'making') return;
    if (code === 0 && complete(state.dir)) state.state = 'ready';
    else fail(`make-code-cache exited with ${signal ?? code}: ${stderr.trim()}`);
  });
  // A second or so of work: it must not keep an engine that is stopping alive.
  child.unref();
  (child.stderr as Readable & { unref?: () => void }).unref?.();
}

/**
 * The cache directory runners should use, or null while it is being made (the first call starts
 * that) or could not be. `pwDir`: playwright-core's package directory; `flags`: the runners' Node flags.
 */
export function playwrightCodeCache(pwDir: string, flags: readonly string[], env: NodeJS.ProcessEnv = process.env): string | null {
  if (!current) {
    try {
      const dir = path.join(cacheRoot(env), keyOf(pwDir, flags));
      current = { dir, state: 'making' };
      if (complete(dir)) {
        ownPrivateDir(dir);
        current.state = 'ready';
      } else make(current, pwDir, flags);
    } catch (err) {
      current = { dir: '', state: 'failed', error: err instanceof Error ? err.message : String(err) };
    }
  }
  if (current.state !== 'ready') return null;
  // Removed under us (another engine's sweep, a user): make it again, and go without meanwhile.
  if (!complete(current.dir)) {
    current = undefined;
    return playwrightCodeCache(pwDir, flags, env);
  }
  return current.dir;
}

/** Where the cache stands in this process (for status pages and tests). */
export function playwrightCodeCacheStatus(): Readonly<State> | undefined {
  return current && { ...current };
}

/** Forgets this process's cache state: tests start over with another directory. */
export function resetPlaywrightCodeCache(): void {
  current = undefined;
}
