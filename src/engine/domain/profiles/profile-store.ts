/**
 * Where saved profile state lives: `<dataDir>/profiles/<id>/state/`, a plain directory tree of
 * the profile parts (profile-files.ts), so restoring into a new user-data-dir is a file copy.
 * Saves are atomic (written beside, then swapped in by rename), so a reader or a crash never
 * sees half a profile; concurrent saves of one profile serialize and the last one wins.
 * Archives (`tar`, `tar.zst`) are produced on demand from the directory.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { create as createTar } from 'tar';
import { newId } from '../ids.js';
import { copyProfileParts, copyTree } from './profile-files.js';

export type ProfileArchiveFormat = 'tar' | 'tar.zst';

/** The format a download uses when the client names none (what the hosted service stores). */
export const STORED_FORMAT: ProfileArchiveFormat = 'tar.zst';

export class ProfileStore {
  private readonly chains = new Map<string, Promise<unknown>>();
  private zstdChecked: boolean | undefined;

  constructor(private readonly root: string) {}

  private stateDir(id: string): string {
    return path.join(this.root, id, 'state');
  }

  /** Runs `fn` after every earlier operation on the same profile has settled. */
  private serialize<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.chains.set(id, tail);
    void tail.then(() => {
      if (this.chains.get(id) === tail) this.chains.delete(id);
    });
    return next;
  }

  /** Fills a fresh (not yet launched) user-data-dir with the saved state, if any. */
  restoreInto(id: string, userDataDir: string): Promise<number> {
    return this.serialize(id, () => copyTree(this.stateDir(id), userDataDir));
  }

  /** Replaces the saved state with the profile parts of a closed browser's user-data-dir. */
  async saveFrom(id: string, userDataDir: string): Promise<number> {
    const staged = await this.stage(id, userDataDir);
    await this.commit(id, staged.dir);
    return staged.copied;
  }

  /**
   * Copies the profile parts of a closed browser's user-data-dir beside the saved state (not
   * serialized: each copy has its own staging dir); `commit` or `discard` it afterwards.
   */
  async stage(id: string, userDataDir: string): Promise<{ dir: string; copied: number }> {
    const base = path.join(this.root, id);
    await fs.mkdir(base, { recursive: true, mode: 0o700 });
    const dir = path.join(base, `.staging-${newId(8)}`);
    try {
      await fs.mkdir(dir, { mode: 0o700 });
      return { dir, copied: await copyProfileParts(userDataDir, dir) };
    } catch (err) {
      await this.discard(dir);
      throw err;
    }
  }

  /**
   * Swaps a staged copy in as the saved state (atomic rename). `stillWanted` is asked inside
   * the profile's queue, after every earlier save: false discards the copy instead.
   */
  commit(id: string, staging: string, stillWanted: () => boolean = () => true): Promise<boolean> {
    return this.serialize(id, async () => {
      const base = path.join(this.root, id);
      const old = path.join(base, `.old-${newId(8)}`);
      try {
        if (!stillWanted()) return false;
        await fs.rename(this.stateDir(id), old).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') throw e;
        });
        await fs.rename(staging, this.stateDir(id));
        return true;
      } finally {
        await this.discard(staging);
        await fs.rm(old, { recursive: true, force: true });
      }
    });
  }

  discard(staging: string): Promise<void> {
    return fs.rm(staging, { recursive: true, force: true });
  }

  remove(id: string): Promise<void> {
    return this.serialize(id, () => fs.rm(path.join(this.root, id), { recursive: true, force: true }));
  }

  /** Whether the zstd command-line tool is available (tar.zst archives need it). */
  hasZstd(): boolean {
    if (this.zstdChecked === undefined) this.zstdChecked = spawnSync('zstd', ['--version'], { stdio: 'ignore' }).status === 0;
    return this.zstdChecked;
  }

  /**
   * A stream of the saved state as an archive. The profile stays locked against saves until
   * the stream ends, so a download never mixes two saves.
   */
  async archive(id: string, format: ProfileArchiveFormat): Promise<Readable> {
    let unlock!: () => void;
    const locked = new Promise<void>((resolve) => (unlock = resolve));
    const ready = new Promise<Readable>((resolve, reject) => {
      void this.serialize(id, async () => {
        try {
          resolve(await this.openArchive(id, format));
        } catch (e) {
          reject(e);
          unlock();
        }
        await locked;
      });
    });
    const stream = await ready;
    stream.once('close', unlock);
    stream.once('error', unlock);
    return stream;
  }

  private async openArchive(id: string, format: ProfileArchiveFormat): Promise<Readable> {
    const dir = this.stateDir(id);
    const entries = await fs.readdir(dir).catch(() => [] as string[]);
    // An empty tar is two zero blocks; node-tar refuses an empty entry list.
    const tar = entries.length ? Readable.from(createTar({ cwd: dir, portable: true, follow: false }, entries.sort())) : Readable.from([Buffer.alloc(1024)]);
    if (format === 'tar') return tar;
    const zstd = spawn('zstd', ['-q', '-c', '-3', '-'], { stdio: ['pipe', 'pipe', 'ignore'] });
    tar.on('error', (e) => zstd.stdout.destroy(e));
    zstd.stdin.on('error', () => tar.destroy());
    tar.pipe(zstd.stdin);
    zstd.on('error', (e) => zstd.stdout.destroy(e));
    // If the client goes away, stop both producers.
    zstd.stdout.once('close', () => {
      tar.destroy();
      if (zstd.exitCode === null) zstd.kill();
    });
    return zstd.stdout;
  }
}
