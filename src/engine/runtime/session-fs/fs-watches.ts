/**
 * Filesystem watches of a session (`/fs/watch`): Node's `fs.watch` (recursive on Linux since
 * Node 20) reports only "rename" and "change", so each watch keeps a map of the entries it has
 * seen (inode, size, mtime) to tell CREATE, WRITE, DELETE and RENAME apart: a vanished entry
 * whose inode reappears under another name is a RENAME (the old path, as fsnotify reports it)
 * followed by a CREATE of the new one. Events are buffered until a client reads
 * `…/watch/{id}/events`, and every watch ends with its session. Entries are kept by client path
 * and every look at one is walked by handles inside the session root (rooted-fs.ts), so a
 * directory swapped for a link under a watch shows nothing of the host; the kernel watch itself
 * sits on the directory's descriptor (Linux), not on a path that could be swapped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { RootedFs, withRoot } from './rooted-fs.js';

export type WatchEventType = 'CREATE' | 'WRITE' | 'DELETE' | 'RENAME';
export interface WatchEvent {
  path: string;
  type: WatchEventType;
  is_dir: boolean;
  name: string;
}

interface Seen {
  ino: number;
  size: number;
  mtimeMs: number;
  dir: boolean;
}

/** How long a vanished entry waits for its inode to reappear before it counts as deleted. */
const RENAME_WINDOW_MS = 60;
const MAX_BUFFERED = 10_000;
const MAX_INITIAL_SCAN = 20_000;

export class FsWatch {
  readonly id = randomUUID();
  private watcher?: fs.FSWatcher;
  private seen = new Map<string, Seen>();
  private pendingDeletes = new Map<string, { seen: Seen; timer: NodeJS.Timeout }>();
  private buffer: WatchEvent[] = [];
  private listeners = new Set<(e: WatchEvent) => void>();
  private endListeners = new Set<() => void>();
  private queue: Promise<void> = Promise.resolve();
  ended = false;

  /** The watched directory, held open for the watch's life (its descriptor is what the kernel watches). */
  private dirView?: RootedFs;

  constructor(
    readonly sessionId: string,
    private readonly root: string,
    /** The watched directory as a client path. */
    private readonly dir: string,
    private readonly recursive: boolean,
  ) {}

  async start(): Promise<void> {
    this.dirView = await RootedFs.open(this.root);
    try {
      const d = await this.dirView.resolve(this.dir, { followLeaf: true });
      if (!d.leaf?.stat.isDirectory()) throw new Error(`${this.dir} is no longer a directory`);
      await this.scan(this.dir, this.recursive, { count: 0 });
      this.watcher = fs.watch(d.leaf.path, { recursive: this.recursive, persistent: false }, (type, filename) => {
        if (!filename) return;
        const virtual = path.posix.join(this.dir, filename.toString());
        this.queue = this.queue.then(() => this.handle(type, virtual)).catch(() => {});
      });
    } catch (err) {
      await this.dirView.close();
      throw err;
    }
    this.watcher.on('error', () => this.stop());
  }

  /** lstat of a client path, walked inside the root; null when nothing is there. */
  private lstat(virtual: string): Promise<fs.Stats | null> {
    return withRoot(this.root, async (r) => (await r.resolve(virtual, { followLeaf: false })).leaf?.stat ?? null).catch(() => null);
  }

  private async scan(dir: string, deep: boolean, budget: { count: number }): Promise<void> {
    const entries = await withRoot(this.root, async (r) => {
      const d = await r.resolve(dir, { followLeaf: false });
      return d.leaf?.stat.isDirectory() ? r.entries(d.leaf) : [];
    }).catch(() => []);
    for (const { name, stat } of entries) {
      if (budget.count++ > MAX_INITIAL_SCAN) return;
      const virtual = path.posix.join(dir, name);
      this.seen.set(virtual, seenOf(stat));
      if (deep && stat.isDirectory()) await this.scan(virtual, true, budget);
    }
  }

  private async handle(type: string, entry: string): Promise<void> {
    if (this.ended) return;
    const st = await this.lstat(entry);
    const before = this.seen.get(entry);
    if (!st) {
      if (!before || this.pendingDeletes.has(entry)) return;
      this.seen.delete(entry);
      const timer = setTimeout(() => {
        this.pendingDeletes.delete(entry);
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
      clearTimeout(this.pendingDeletes.get(from)!.timer);
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
      this.forgetChildren(from);
    }
    this.seen.set(entry, now);
    this.emit('CREATE', entry, now.dir);
    if (now.dir && this.recursive) await this.scan(entry, true, { count: 0 });
  }

  private forgetChildren(dir: string): void {
    for (const k of this.seen.keys()) if (k.startsWith(`${dir}/`)) this.seen.delete(k);
  }

  private emit(type: WatchEventType, virtual: string, isDir: boolean): void {
    const event: WatchEvent = { path: virtual, type, is_dir: isDir, name: path.posix.basename(virtual) };
    if (this.listeners.size === 0) {
      this.buffer.push(event);
      if (this.buffer.length > MAX_BUFFERED) this.buffer.shift();
    }
    for (const fn of this.listeners) fn(event);
  }

  /** Delivers buffered events, then live ones, until `stop` or the returned unsubscribe. */
  subscribe(fn: (e: WatchEvent) => void, onEnd: () => void): () => void {
    for (const e of this.buffer.splice(0)) fn(e);
    this.listeners.add(fn);
    this.endListeners.add(onEnd);
    if (this.ended) onEnd();
    return () => {
      this.listeners.delete(fn);
      this.endListeners.delete(onEnd);
    };
  }

  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.watcher?.close();
    void this.dirView?.close();
    for (const p of this.pendingDeletes.values()) clearTimeout(p.timer);
    this.pendingDeletes.clear();
    for (const fn of [...this.endListeners]) fn();
    this.listeners.clear();
    this.endListeners.clear();
  }
}

function seenOf(st: fs.Stats): Seen {
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, dir: st.isDirectory() };
}

/** All watches of the engine, by id; ended with their session or at engine stop. */
export class FsWatches {
  private watches = new Map<string, FsWatch>();

  async start(sessionId: string, root: string, dir: string, recursive: boolean): Promise<FsWatch> {
    const w = new FsWatch(sessionId, root, dir, recursive);
    await w.start();
    this.watches.set(w.id, w);
    return w;
  }

  get(sessionId: string, id: string): FsWatch | undefined {
    const w = this.watches.get(id);
    return w && w.sessionId === sessionId && !w.ended ? w : undefined;
  }

  stop(id: string): void {
    this.watches.get(id)?.stop();
    this.watches.delete(id);
  }

  stopSession(sessionId: string): void {
    for (const w of this.watches.values()) if (w.sessionId === sessionId) this.stop(w.id);
  }

  stopAll(): void {
    for (const id of [...this.watches.keys()]) this.stop(id);
  }
}
