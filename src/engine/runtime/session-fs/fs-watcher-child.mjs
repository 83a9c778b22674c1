/**
 * The filesystem watcher of one session (`/fs/watch`): every watch of the session lives here,
 * in a process of the session's own — inside a jail of the session as its uid when bubblewrap
 * works (fs-watcher-launch.ts), so no walk, stat or inotify watch is ever the engine's.
 *
 *   node fs-watcher-child.mjs <root> <budget>
 *
 * `<root>` is the session's filesystem (in the jail: a read-only view of the session root, with
 * nothing of the jail's system mounts in it). `<budget>` is how many directories all watches of
 * the session may watch together: one inotify watch each. stdin carries the engine's commands,
 * one JSON object a line: `{"op":"add","id","dir","recursive"}`, `{"op":"remove","id"}`; the
 * process ends when stdin does (the engine ended it or died). stdout carries reports, one JSON
 * object a line, which the engine parses as untrusted (fs-watcher-report.ts): `added`, `refused`
 * (`watch_limit`, `not_found`, `watch_failed`), `event` (a path relative to the watched dir),
 * `limit` (a recursive watch grew past the budget and ended), `ended` (its directory is gone).
 *
 * Links are never followed. On Linux every directory is opened by descriptor, one name at a time
 * relative to its parent's descriptor, with O_NOFOLLOW|O_DIRECTORY (`/proc/self/fd/<fd>/<name>`),
 * and the inotify watch is placed on that descriptor's inode (`/proc/self/fd/<fd>`), so a name
 * swapped for a link between two steps fails the open instead of leading elsewhere. The walk
 * descends only into entries whose type is directory (a symlink never is). Elsewhere (no /proc:
 * the desktop on macOS/Windows) the same walk goes by path with lstat checks.
 *
 * Node's fs.watch reports only "rename" and "change", so each watch keeps a map of the entries it
 * has seen (inode, size, mtime) to tell CREATE, WRITE, DELETE and RENAME apart: a vanished entry
 * whose inode reappears under another name is a RENAME (the old path, as fsnotify reports it)
 * followed by a CREATE of the new one.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createInterface } from 'node:readline';

const [ROOT, BUDGET_ARG] = process.argv.slice(2);
const BUDGET = Math.max(0, Math.floor(Number(BUDGET_ARG) || 0));
const BY_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd');
const DIR_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
/** How long a vanished entry waits for its inode to reappear before it counts as deleted. */
const RENAME_WINDOW_MS = 60;
/** Entries remembered per watch (for RENAME/WRITE); beyond, a first event of an entry is a CREATE. */
const MAX_SEEN = 100_000;
const NAME = /^[^/\0]+$/;

/** Directories watched by all watches of this session: the budget's count. */
let used = 0;
const watches = new Map();

function send(report) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

class LimitReached extends Error {}

/** A directory held for a walk step: its descriptor (Linux) and the path that names exactly it. */
async function openPath(p) {
  if (BY_FD) {
    const fh = await fsp.open(p, DIR_FLAGS);
    return { fh, path: `/proc/self/fd/${fh.fd}` };
  }
  const st = await fsp.lstat(p);
  if (!st.isDirectory()) throw Object.assign(new Error(`${p} is not a directory`), { code: 'ENOTDIR' });
  return { path: p };
}

/** The path naming `name` inside the held directory `dir`, without following a link there. */
function at(dir, name) {
  return `${dir.path}/${name}`;
}

function openChild(dir, name) {
  if (!NAME.test(name) || name === '.' || name === '..') throw Object.assign(new Error('bad name'), { code: 'ENOENT' });
  return openPath(at(dir, name));
}

async function close(dir) {
  await dir?.fh?.close().catch(() => {});
}

/** Opens `rel` ('' = `base` itself, else names joined by '/') below the held directory `base`. */
async function openBelow(base, rel) {
  // A copy without the descriptor: the walk closes what it opened, never `base` itself.
  let dir = { path: base.path };
  for (const name of rel.split('/').filter(Boolean)) {
    const parent = dir;
    dir = await openChild(parent, name).finally(() => close(parent));
  }
  return dir;
}

function seenOf(st) {
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, dir: st.isDirectory() };
}

class Watch {
  constructor(id, dir, recursive) {
    this.id = id;
    this.dir = dir;
    this.recursive = recursive;
    /** Watched directories by path relative to `dir` ('' = itself) → their FSWatcher. */
    this.dirs = new Map();
    this.seen = new Map();
    this.pendingDeletes = new Map();
    this.queue = Promise.resolve();
    this.ended = false;
    this.base = undefined;
  }

  async start() {
    let dir = await openPath(ROOT);
    for (const name of this.dir.split('/').filter(Boolean)) {
      const parent = dir;
      dir = await openChild(parent, name).finally(() => close(parent));
    }
    this.base = dir;
    await this.scan('', { path: dir.path }, this.recursive);
  }

  /** Watches the held directory `dir` (at `rel`), records its entries, and descends when deep. */
  async scan(rel, dir, deep) {
    if (this.ended) return;
    this.watchDir(rel, dir);
    const entries = await fsp.readdir(dir.path, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (this.ended) return;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (this.seen.size < MAX_SEEN) {
        const st = await fsp.lstat(at(dir, e.name)).catch(() => null);
        if (st) this.seen.set(child, seenOf(st));
      }
      // Dirent types come from the directory itself: a symlink is never a directory here.
      if (!deep || !e.isDirectory() || this.dirs.has(child)) continue;
      const sub = await openChild(dir, e.name).catch(() => null);
      if (!sub) continue;
      try {
        await this.scan(child, sub, true);
      } finally {
        await close(sub);
      }
    }
  }

  watchDir(rel, dir) {
    if (this.dirs.has(rel)) return;
    if (used >= BUDGET) throw new LimitReached();
    let watcher;
    try {
      watcher = fs.watch(dir.path, { persistent: true }, (type, filename) => {
        if (!filename) return;
        const name = filename.toString();
        if (!NAME.test(name)) return;
        const entry = rel ? `${rel}/${name}` : name;
        this.queue = this.queue.then(() => this.handle(type, entry)).catch(() => {});
      });
    } catch (err) {
      // The kernel's own per-user limit (max_user_watches) counts as the budget, too.
      if (err?.code === 'ENOSPC') throw new LimitReached();
      throw err;
    }
    used++;
    this.dirs.set(rel, watcher);
    watcher.on('error', () => (rel === '' ? this.end('ended') : this.dropDirs(rel)));
  }

  /** Stops watching `rel` and every directory below it. */
  dropDirs(rel) {
    for (const [k, w] of this.dirs) {
      if (k !== rel && !k.startsWith(`${rel}/`)) continue;
      w.close();
      this.dirs.delete(k);
      used--;
    }
  }

  async lstat(rel) {
    const cut = rel.lastIndexOf('/');
    let parent;
    try {
      parent = await openBelow(this.base, cut < 0 ? '' : rel.slice(0, cut));
      return await fsp.lstat(at(parent, rel.slice(cut + 1)));
    } catch {
      return null;
    } finally {
      await close(parent);
    }
  }

  async handle(type, entry) {
    if (this.ended) return;
    const st = await this.lstat(entry);
    const before = this.seen.get(entry);
    if (!st) {
      if (!before || this.pendingDeletes.has(entry)) return;
      this.seen.delete(entry);
      const timer = setTimeout(() => {
        this.pendingDeletes.delete(entry);
        this.forget(entry);
        this.emit('DELETE', entry, before.dir);
      }, RENAME_WINDOW_MS);
      this.pendingDeletes.set(entry, { seen: before, timer });
      return;
    }
    const now = seenOf(st);
    if (before && before.ino === now.ino) {
      this.seen.set(entry, now);
      if (type === 'change' && !now.dir && (before.size !== now.size || before.mtimeMs !== now.mtimeMs)) this.emit('WRITE', entry, false);
      return;
    }
    // A new entry: was it moved here from a path that vanished (either event order)?
    let from = [...this.pendingDeletes.entries()].find(([, p]) => p.seen.ino === now.ino)?.[0];
    if (from) {
      clearTimeout(this.pendingDeletes.get(from).timer);
      this.pendingDeletes.delete(from);
    } else {
      for (const [other, s] of this.seen) {
        if (other !== entry && s.ino === now.ino && !(await this.lstat(other))) {
          from = other;
          this.seen.delete(other);
          break;
        }
      }
    }
    if (from) {
      this.emit('RENAME', from, now.dir);
      this.forget(from);
    }
    if (before) this.forget(entry); // replaced (e.g. a directory swapped for a link): what was below is gone
    this.seen.set(entry, now);
    this.emit('CREATE', entry, now.dir);
    if (!now.dir || !this.recursive) return;
    let sub;
    try {
      sub = await openBelow(this.base, entry);
      await this.scan(entry, sub, true);
    } catch (err) {
      if (err instanceof LimitReached) {
        send({ t: 'limit', id: this.id, dirs: used, budget: BUDGET });
        this.end();
      }
    } finally {
      await close(sub);
    }
  }

  /** Forgets what was seen at and below `rel` and stops watching directories there. */
  forget(rel) {
    for (const k of this.seen.keys()) if (k.startsWith(`${rel}/`)) this.seen.delete(k);
    this.dropDirs(rel);
  }

  emit(type, rel, isDir) {
    if (!this.ended) send({ t: 'event', id: this.id, type, path: rel, dir: isDir });
  }

  /** Ends the watch; `report` ('ended') tells the engine it ended on its own. */
  end(report) {
    if (this.ended) return;
    this.ended = true;
    for (const w of this.dirs.values()) w.close();
    used -= this.dirs.size;
    this.dirs.clear();
    for (const p of this.pendingDeletes.values()) clearTimeout(p.timer);
    this.pendingDeletes.clear();
    this.seen.clear();
    void close(this.base);
    watches.delete(this.id);
    if (report) send({ t: report, id: this.id });
  }
}

async function add(cmd) {
  const w = new Watch(cmd.id, cmd.dir, cmd.recursive === true);
  watches.set(w.id, w);
  try {
    await w.start();
    send({ t: 'added', id: w.id, dirs: w.dirs.size });
  } catch (err) {
    const dirs = used;
    w.end();
    if (err instanceof LimitReached) send({ t: 'refused', id: w.id, code: 'watch_limit', dirs, budget: BUDGET });
    else if (['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES'].includes(err?.code)) send({ t: 'refused', id: w.id, code: 'not_found' });
    else send({ t: 'refused', id: w.id, code: 'watch_failed' });
  }
}

// Commands are handled one at a time: a second watch's walk starts once the first's is counted.
let commands = Promise.resolve();
createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on('line', (line) => {
    let cmd;
    try {
      cmd = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof cmd?.id !== 'string') return;
    if (cmd.op === 'add' && typeof cmd.dir === 'string' && cmd.dir.startsWith('/')) commands = commands.then(() => add(cmd));
    if (cmd.op === 'remove') commands = commands.then(() => watches.get(cmd.id)?.end());
  })
  .on('close', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));
