/**
 * A byte quota on each session's filesystem: where the engine is root and loop devices work, a
 * session dir is its own ext4 filesystem of `--session-disk-mb`, loop-mounted over the dir, so
 * whatever the session writes (its root with `/tmp`, `/downloads`, `/home/kernel`, the browser's
 * profile and temp dir) fills that filesystem and never the data dir's: at the quota the
 * tenant's write fails with ENOSPC from its own disk, and the engine's database carries on.
 *
 * One template image is formatted per engine (sparse, no journal, inode tables marked zeroed so
 * the kernel never writes them lazily behind us) and each session copies it sparse (`cp
 * --sparse=always`: a few ms and ~1 MB, against ~30 ms for a mkfs), into the session dir itself
 * and mounted over it: the image hides under its own mount, and once unmounted the session dir's
 * usual removal (or crash recovery's, after `unmountLeftover`) deletes it with the rest.
 * Mounted `nosuid,nodev`. Where this cannot work (not root, no `/dev/loop-control`, no
 * mkfs.ext4, a mount that fails) the method is 'none' and sessions write into the data dir as
 * before; the engine starts either way and `/healthz` says which.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { HostCommands, runDirect } from '../host-commands/host-commands.js';

/**
 * How a command is run: a session's by the engine's host command helper; the probe's and crash
 * recovery's (once, at the engine's start, not on any session's path) forked from the engine.
 */
type Run = (file: string, args: string[]) => Promise<unknown>;
const atStart: Run = (file, args) => runDirect(file, args, { timeoutMs: COMMAND_TIMEOUT_MS });

export type DiskMethod = 'loop' | 'none';

/** The image inside each session dir, hidden by the mount of itself. */
const IMAGE = '.disk.img';
const COMMAND_TIMEOUT_MS = 20_000;

export interface SessionDisksOptions {
  /** The engine's data dir: the template lives in it, so copies stay on one filesystem. */
  dataDir: string;
  /** Quota per session, MiB. */
  perSessionMb: number;
  /** Called (in the background) when a probe fails: why sessions have no quota. */
  onUnavailable?: (reason: string) => void;
}

/** A mounted session filesystem: how full it is, and its unmount at the session's end. */
export interface SessionDisk {
  readonly dir: string;
  readonly sizeMb: number;
  /** Free bytes the session can still write, and free inodes (statfs of its own filesystem). */
  free(): Promise<{ bytes: number; inodes: number; totalBytes: number }>;
  /** Unmounts (lazily if something still holds it); the image goes with the session dir. */
  detach(): Promise<void>;
}

export class SessionDisks {
  private probing?: Promise<DiskMethod>;
  private template?: string;
  private methodNow: DiskMethod = 'none';
  /** Three commands per session (cp, mount, umount): run beside the engine, not forked from it (host-commands.ts). */
  private readonly commands = new HostCommands();
  private readonly run: Run = (file, args) => this.commands.run(file, args, { timeoutMs: COMMAND_TIMEOUT_MS });

  constructor(private readonly o: SessionDisksOptions) {}

  /** Ends the command helper (the engine's stop, after every session's disk was detached). */
  close(): void {
    this.commands.close();
  }

  get perSessionMb(): number {
    return this.o.perSessionMb;
  }

  /** The method learned by `ready()` ('none' until it has run). */
  get method(): DiskMethod {
    return this.methodNow;
  }

  /** Learns once whether loop-mounted session filesystems work here, formatting the template. */
  ready(): Promise<DiskMethod> {
    this.probing ??= this.probe().then(
      (m) => (this.methodNow = m),
      (err: Error) => {
        this.o.onUnavailable?.(err.message);
        return (this.methodNow = 'none');
      },
    );
    return this.probing;
  }

  private async probe(): Promise<DiskMethod> {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'none';
    if (!fs.existsSync('/dev/loop-control')) throw new Error('no /dev/loop-control: session filesystems have no byte quota');
    const dir = path.join(this.o.dataDir, 'session-disk');
    // One engine per data dir (engine-pid-file.ts): templates of earlier runs (other sizes) go,
    // and a probe mount a killed engine left.
    for (const name of await fsp.readdir(dir).catch(() => [] as string[])) if (name.startsWith('probe-')) await unmountLeftover(path.join(dir, name));
    await fsp.rm(dir, { recursive: true, force: true }).catch(() => {});
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const template = path.join(dir, `template-${this.o.perSessionMb}m.img`);
    const fresh = `${template}.${process.pid}`;
    await fsp.rm(fresh, { force: true });
    const fd = await fsp.open(fresh, 'w', 0o600);
    await fd.truncate(this.o.perSessionMb * 1024 * 1024);
    await fd.close();
    try {
      // Discard (a hole punch on a file) lets mke2fs mark the inode tables zeroed without writing them.
      await atStart('mkfs.ext4', ['-q', '-F', '-E', 'lazy_itable_init=0,root_owner=0:0', '-O', '^has_journal', '-m', '0', fresh]);
      // Once mounted here, so a host whose loop devices or ext4 do not work says so now, not at a create.
      const probe = path.join(dir, `probe-${process.pid}`);
      await fsp.mkdir(probe, { recursive: true });
      try {
        await mount(fresh, probe, atStart);
        await unmount(probe, atStart);
      } finally {
        await fsp.rmdir(probe).catch(() => {});
      }
      await fsp.rename(fresh, template);
    } catch (err) {
      await fsp.rm(fresh, { force: true });
      throw new Error(`session filesystems have no byte quota: ${commandError(err)}`);
    }
    this.template = template;
    return 'loop';
  }

  /**
   * Makes `sessionDir` the session's own filesystem (creating the dir), or does nothing (undefined)
   * where the method is 'none'. A failure leaves at most a dir and an image, which the session's
   * removal takes; nothing stays mounted.
   */
  async attach(sessionDir: string): Promise<SessionDisk | undefined> {
    if ((await this.ready()) !== 'loop' || !this.template) return undefined;
    await fsp.mkdir(sessionDir, { recursive: true, mode: 0o700 });
    const image = path.join(sessionDir, IMAGE);
    try {
      await this.run('cp', ['--sparse=always', this.template, image]);
      await mount(image, sessionDir, this.run);
    } catch (err) {
      throw new Error(`the session's filesystem could not be mounted: ${commandError(err)}`);
    }
    // The filesystem's root is the session dir now: private like the dir it covers (jails add o+x).
    await fsp.chmod(sessionDir, 0o700).catch(async (err: Error) => {
      await unmount(sessionDir, this.run);
      throw err;
    });
    let detached: Promise<void> | undefined;
    const run = this.run;
    return {
      dir: sessionDir,
      sizeMb: this.o.perSessionMb,
      async free() {
        const s = await fsp.statfs(sessionDir);
        return { bytes: s.bavail * s.bsize, inodes: s.ffree, totalBytes: s.blocks * s.bsize };
      },
      detach() {
        detached ??= unmount(sessionDir, run);
        return detached;
      },
    };
  }
}

async function mount(image: string, dir: string, run: Run): Promise<void> {
  await run('mount', ['-t', 'ext4', '-o', 'loop,nosuid,nodev', image, dir]);
}

/** Unmounts `dir`; something still holding it (a process not yet reaped) gets a lazy unmount. */
async function unmount(dir: string, run: Run): Promise<void> {
  try {
    await run('umount', [dir]);
  } catch {
    await run('umount', ['-l', dir]).catch(() => {});
  }
}

/**
 * Crash recovery: unmounts the disk a previous engine left mounted at a leftover session dir (a
 * session dir is mounted only there), so the dir's removal can delete it with its image. Reads
 * this process's mount table; nothing else is touched.
 */
export async function unmountLeftover(dir: string): Promise<void> {
  const at = path.resolve(dir);
  const table = await fsp.readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  if (table.split('\n').some((line) => unescapeMountPath(line.split(' ')[4] ?? '') === at)) await unmount(at, atStart);
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMountPath(p: string): string {
  return p.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

function commandError(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).split('\n')[0]!;
}
