/**
 * The session filesystem walked by handles, so that nothing a session process does between two
 * steps of an operation can make the engine act outside the session root.
 *
 * An operation opens the root once and walks the client path one component at a time: each
 * component is opened O_PATH|O_NOFOLLOW *through the previous one's descriptor*
 * (`/proc/self/fd/<dir>/<name>` — the kernel looks `name` up in that very directory, whatever
 * has been renamed or swapped since), and the operation then acts on a name inside a pinned
 * directory (unlink, rename, mkdir, create) or on the pinned leaf itself (`/proc/self/fd/<leaf>`
 * reopens, chmods or chowns exactly that inode). The kernel never follows a symlink for us:
 * the walker reads each link and resolves it *inside the root*, the way the session's own
 * processes see it in their jail, where the root is `/` — an absolute target starts again at the
 * root and `..` stops there (openat2's RESOLVE_IN_ROOT). So `ln -s /etc/passwd x` in a session
 * makes `x` name the session's own `/etc/passwd`, for its browser and for this API alike.
 *
 * Without /proc (macOS, Windows) the same walk runs on plain paths: the same answers, but not
 * race-free — those hosts run unjailed and serve loopback only (jail-status.ts).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { normalizeClientPath } from './client-path.js';
import { fsError } from './fs-errors.js';
import { jailUsersOn } from '../sandbox/jail-user.js';

const BY_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd');
/** Not in fs.constants; the same value on every Linux architecture Node supports. */
const O_PATH = BY_FD ? 0o10000000 : 0;
const { O_DIRECTORY, O_NOFOLLOW, O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
/** FIFOs must never block an open (a session could plant one where a file is expected). */
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const MAX_LINKS = 40;
const MAX_RETRIES = 8;

/** An opened file or directory of the walk; `path` names exactly it to the kernel. */
export interface Pinned {
  path: string;
  stat: fs.Stats;
  handle?: fsp.FileHandle;
}

export interface Resolved {
  /** Where the walk ended, as a client path (links followed). */
  virtual: string;
  /** The directory holding the leaf. */
  parent: Pinned;
  /** The leaf's name in `parent`; '' when the walk ended at the root. */
  name: string;
  /** The leaf when it exists (the link itself when not following). */
  leaf?: Pinned;
}

export interface WalkOptions {
  /** Follow a symlink at the leaf (reads, writes, listing); false to act on the link itself. */
  followLeaf: boolean;
  /** Create missing directories on the way (write_file, create_directory, uploads). */
  createParents?: boolean;
  /** The field name for error messages. */
  field?: string;
}

export function notFound(virtual: string): DomainError {
  return new DomainError(404, 'not_found', `no such file or directory: ${virtual}`);
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

function joinVirtual(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** One operation's view of a session root; `close` releases every descriptor it opened. */
export class RootedFs {
  private readonly handles = new Set<fsp.FileHandle>();

  private constructor(private readonly root: Pinned) {}

  static async open(rootDir: string): Promise<RootedFs> {
    if (!BY_FD) return new RootedFs({ path: rootDir, stat: await fsp.stat(rootDir) });
    const handle = await fsp.open(rootDir, O_PATH | O_DIRECTORY);
    const r = new RootedFs({ path: `/proc/self/fd/${handle.fd}`, stat: await handle.stat(), handle });
    r.handles.add(handle);
    return r;
  }

  async close(): Promise<void> {
    await Promise.all([...this.handles].map((h) => h.close().catch(() => {})));
    this.handles.clear();
  }

  /** The kernel path of `name` inside the pinned directory `dir`. */
  at(dir: Pinned, name: string): string {
    return name === '' ? dir.path : `${dir.path}/${name}`;
  }

  /**
   * The session's jail user (the owner of its root, runtime/sandbox/jail-user.ts) when the engine
   * is root; what the engine creates goes to it, so the session's processes can change it.
   */
  get sessionOwner(): { uid: number; gid: number } | undefined {
    if (!jailUsersOn() || this.root.stat.uid === 0) return undefined;
    return { uid: this.root.stat.uid, gid: this.root.stat.gid };
  }

  /**
   * Gives the directory the engine just made at `kernelPath` to the session's jail user. The jail
   * user owns the parent and may swap the name meanwhile: only a root-owned directory pinned by
   * descriptor is changed, through that descriptor (never a path the session can redirect).
   */
  async giveToSession(kernelPath: string): Promise<void> {
    if (!this.sessionOwner) return;
    const made = await this.pin(kernelPath);
    if (!made) return;
    try {
      await this.givePinned(made);
    } finally {
      await this.release(made);
    }
  }

  private async givePinned(made: Pinned): Promise<void> {
    const o = this.sessionOwner;
    if (o && made.stat.isDirectory() && made.stat.uid === 0) await fsp.chown(made.path, o.uid, o.gid);
  }

  /** Opens what `p` names without following a link there; null when nothing is there. */
  async pin(p: string): Promise<Pinned | null> {
    try {
      if (!BY_FD) return { path: p, stat: await fsp.lstat(p) };
      const handle = await fsp.open(p, O_PATH | O_NOFOLLOW);
      this.handles.add(handle);
      return { path: `/proc/self/fd/${handle.fd}`, stat: await handle.stat(), handle };
    } catch (err) {
      if (errno(err) === 'ENOENT') return null;
      throw err;
    }
  }

  /** Closes a pinned entry early (long walks over many entries). */
  async release(p: Pinned): Promise<void> {
    if (!p.handle || p === this.root) return;
    this.handles.delete(p.handle);
    await p.handle.close().catch(() => {});
  }

  /** Walks `clientPath` from the root (see the file comment). */
  async resolve(clientPath: unknown, opts: WalkOptions): Promise<Resolved> {
    const requested = normalizeClientPath(clientPath, opts.field);
    try {
      return await this.walk(requested, opts);
    } catch (err) {
      throw fsError(err, requested);
    }
  }

  private async walk(requested: string, opts: WalkOptions): Promise<Resolved> {
    const stack: { dir: Pinned; name: string }[] = [{ dir: this.root, name: '' }];
    const here = (): Resolved => {
      const top = stack[stack.length - 1];
      const parent = stack.length > 1 ? stack[stack.length - 2].dir : this.root;
      return { virtual: virtualOfStack(stack), parent, name: top.name, leaf: top.dir };
    };
    let queue = requested.split('/').filter(Boolean);
    let links = 0;
    let retries = 0;
    while (queue.length > 0) {
      const seg = queue.shift() as string;
      if (seg === '.' || seg === '..') {
        if (seg === '..' && stack.length > 1) stack.pop();
        continue;
      }
      const top = stack[stack.length - 1];
      const last = queue.length === 0;
      const kernelPath = this.at(top.dir, seg);
      let pinned = await this.pin(kernelPath);
      if (last && (!opts.followLeaf || !pinned?.stat.isSymbolicLink())) {
        return { virtual: joinVirtual(virtualOfStack(stack), seg), parent: top.dir, name: seg, leaf: pinned ?? undefined };
      }
      if (!pinned) {
        if (!opts.createParents) throw notFound(requested);
        const made = await fsp.mkdir(kernelPath, { mode: 0o755 }).then(
          () => true,
          (err) => {
            if (errno(err) !== 'EEXIST') throw err;
            return false;
          },
        );
        pinned = await this.pin(kernelPath);
        if (made && pinned) await this.givePinned(pinned);
        if (!pinned) {
          if (++retries > MAX_RETRIES) throw notFound(requested);
          queue.unshift(seg);
          continue;
        }
      }
      if (pinned.stat.isSymbolicLink()) {
        if (++links > MAX_LINKS) throw new DomainError(400, 'too_many_links', `too many levels of symbolic links in ${requested}`);
        const target = await fsp.readlink(kernelPath).catch(() => null);
        await this.release(pinned);
        if (target === null) {
          queue.unshift(seg); // no longer a link: look again
          continue;
        }
        if (target.startsWith('/')) stack.length = 1;
        queue = [...target.split('/').filter(Boolean), ...queue];
        continue;
      }
      if (!pinned.stat.isDirectory()) throw new DomainError(400, 'not_a_directory', `a component of ${requested} is not a directory`);
      stack.push({ dir: pinned, name: seg });
    }
    return here();
  }

  /** Opens the pinned leaf again for I/O: exactly that inode, never what its name now means. */
  async reopen(leaf: Pinned, flags: number): Promise<fsp.FileHandle> {
    return fsp.open(leaf.path, flags | O_NONBLOCK | (BY_FD ? 0 : O_NOFOLLOW));
  }

  /**
   * A regular file opened for writing at `clientPath` (links followed, parents created): the
   * existing one, or a new one made with O_EXCL so a link raced into its place is never followed.
   * The handle is the caller's to close.
   */
  async openForWrite(clientPath: unknown, mode: number): Promise<{ handle: fsp.FileHandle; created: boolean; virtual: string }> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.resolve(clientPath, { followLeaf: true, createParents: true });
      if (r.name === '' || r.leaf?.stat.isDirectory()) throw new DomainError(400, 'is_a_directory', `${r.virtual} is a directory`);
      if (r.leaf && !r.leaf.stat.isFile()) throw new DomainError(400, 'not_a_file', `${r.virtual} is not a regular file`);
      try {
        if (r.leaf) return { handle: await this.reopen(r.leaf, O_WRONLY), created: false, virtual: r.virtual };
        const handle = await fsp.open(this.at(r.parent, r.name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, mode);
        const o = this.sessionOwner;
        if (o) await handle.chown(o.uid, o.gid);
        return { handle, created: true, virtual: r.virtual };
      } catch (err) {
        // Created (or replaced) by a session process meanwhile: look again.
        if ((errno(err) === 'EEXIST' || errno(err) === 'ENOENT') && attempt < MAX_RETRIES) continue;
        throw fsError(err, r.virtual);
      }
    }
  }

  /** Opens a regular file for reading; its size is the opened file's. */
  async openForRead(clientPath: unknown): Promise<{ handle: fsp.FileHandle; stat: fs.Stats; virtual: string }> {
    const r = await this.resolve(clientPath, { followLeaf: true });
    if (!r.leaf) throw notFound(r.virtual);
    if (r.leaf.stat.isDirectory()) throw new DomainError(400, 'is_a_directory', `${r.virtual} is a directory`);
    if (!r.leaf.stat.isFile()) throw new DomainError(400, 'not_a_file', `${r.virtual} is not a regular file`);
    const handle = await this.reopen(r.leaf, O_RDONLY).catch((err) => {
      throw fsError(err, r.virtual);
    });
    return { handle, stat: await handle.stat(), virtual: r.virtual };
  }

  /** Entries of a pinned directory with their lstat (entries removed meanwhile are skipped). */
  async entries(dir: Pinned): Promise<{ name: string; stat: fs.Stats }[]> {
    const names = await fsp.readdir(dir.path);
    const out: { name: string; stat: fs.Stats }[] = [];
    for (const name of names.sort()) {
      const stat = await fsp.lstat(this.at(dir, name)).catch(() => null);
      if (stat) out.push({ name, stat });
    }
    return out;
  }

  /** Removes `name` in `dir` and, for a directory, everything below it, never leaving `dir`. */
  async removeTree(dir: Pinned, name: string): Promise<void> {
    const p = this.at(dir, name);
    const entry = await this.pin(p);
    if (!entry) return;
    try {
      if (!entry.stat.isDirectory()) {
        await fsp.unlink(p).catch((err) => {
          if (errno(err) !== 'ENOENT') throw err;
        });
        return;
      }
      for (const child of await fsp.readdir(entry.path)) await this.removeTree(entry, child);
    } finally {
      await this.release(entry);
    }
    await fsp.rmdir(p).catch((err) => {
      if (errno(err) !== 'ENOENT') throw err;
    });
  }
}

function virtualOfStack(stack: { name: string }[]): string {
  return (
    '/' +
    stack
      .slice(1)
      .map((s) => s.name)
      .join('/')
  );
}

/** Runs `fn` with a fresh view of the root and releases every descriptor afterwards. */
export async function withRoot<T>(rootDir: string, fn: (r: RootedFs) => Promise<T>): Promise<T> {
  const r = await RootedFs.open(rootDir);
  try {
    return await fn(r);
  } finally {
    await r.close();
  }
}

/** The host path of a client path after an in-root walk (for consumers that need a path, e.g. a process cwd). */
export function hostPathOf(rootDir: string, virtual: string): string {
  return virtual === '/' ? rootDir : path.join(rootDir, ...virtual.split('/').filter(Boolean));
}
