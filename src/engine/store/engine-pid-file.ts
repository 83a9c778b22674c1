/**
 * `<dataDir>/engine.pid`: the data dir's lock. An engine takes it before it opens the store and
 * drops it at stop, so a second engine on the same data dir (a second `npm run serve`, a second
 * desktop app) refuses to start with a message naming the first, and offline tools (restore)
 * refuse to replace a database under a running engine.
 *
 * The file names its owner: pid, start time, the kernel's start time of that pid (Linux
 * `/proc/<pid>/stat`; catches a pid reused by an unrelated process after a crash), host and
 * program. It is created whole and atomically (written aside, then hard-linked into place: a
 * link fails if the name exists), so a reader never sees half a lock. A lock whose process is
 * gone (a crash, `kill -9`) is stale and taken over; one written on another host cannot be
 * checked and is respected.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export const PID_FILE = 'engine.pid';

export interface PidFileOwner {
  pid: number;
  /** When that engine took the lock (ISO 8601). */
  startedAt?: string;
  /** The kernel's start time of `pid` (clock ticks since boot, Linux only). */
  procStart?: string;
  host?: string;
  /** The program's file name (never its arguments: they may carry secrets such as a database URL). */
  program?: string;
}

/** Thrown by `acquirePidFile` when another live engine holds the data dir. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: PidFileOwner,
  ) {
    super(inUseMessage(dataDir, owner));
    this.name = 'DataDirInUseError';
  }
}

function inUseMessage(dataDir: string, o: PidFileOwner): string {
  const file = path.join(dataDir, PID_FILE);
  const who = [`pid ${o.pid}`, o.program ? `(${o.program})` : '', o.startedAt ? `started ${o.startedAt}` : ''].filter(Boolean).join(' ');
  const where = o.host && o.host !== os.hostname() ? ` on host ${o.host}` : o.pid === process.pid ? ' in this same process' : '';
  return (
    `the data dir ${dataDir} is in use by another engine: ${who}${where}. ` +
    `Stop that engine first, or give this one another data dir (--data-dir / BROWSERDECK_DATA_DIR)` +
    (where.startsWith(' on host') ? `; if no engine runs there any more, remove ${file}` : '')
  );
}

/** The kernel's start time of `pid` (field 22 of /proc/<pid>/stat), or undefined off Linux / when gone. */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Parses a lock: the JSON this module writes, or an older engine's bare pid line. */
export function parsePidFile(text: string): PidFileOwner | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) };
  try {
    const o = JSON.parse(trimmed) as Partial<PidFileOwner>;
    return typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0 ? (o as PidFileOwner) : null;
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the lock's owner may still run. On this host: its pid exists and, when the lock
 * recorded the pid's kernel start time, the process with that pid now is the same one.
 * On another host: cannot be checked, so yes.
 */
export function ownerAlive(
  o: PidFileOwner,
  probe: { alive: (pid: number) => boolean; startTicks: (pid: number) => string | undefined } = defaultProbe,
): boolean {
  if (o.host && o.host !== os.hostname()) return true;
  if (!probe.alive(o.pid)) return false;
  if (!o.procStart) return true;
  const now = probe.startTicks(o.pid);
  return now === undefined || now === o.procStart;
}

const defaultProbe = { alive: pidAlive, startTicks: processStartTicks };

function readOwner(file: string): PidFileOwner | null | 'absent' {
  try {
    return parsePidFile(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw err;
  }
}

/**
 * Takes the data dir's lock for this process; returns its release. Throws `DataDirInUseError`
 * when a live engine holds it. A stale or unreadable lock is moved aside and the take retried.
 */
export function acquirePidFile(dataDir: string, program = path.basename(process.argv[1] ?? process.argv0)): () => void {
  const file = path.join(dataDir, PID_FILE);
  const me: PidFileOwner = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    procStart: processStartTicks(process.pid),
    host: os.hostname(),
    program,
  };
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(me) + '\n', { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(tmp, file);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = readOwner(file);
      if (owner === 'absent') continue; // released between our link and read: try again
      if (owner && ownerAlive(owner)) throw new DataDirInUseError(dataDir, owner);
      // Stale (its process is gone) or garbage: moved aside under a name of our own and checked
      // again there. When two engines take over the same stale lock at once, the slower one may
      // have moved the faster one's fresh lock: it puts that back and yields to it.
      if (attempt >= 5) throw new Error(`could not take ${file}: it keeps reappearing stale`);
      const aside = `${file}.stale.${process.pid}`;
      try {
        fs.renameSync(file, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = readOwner(aside);
      if (moved && moved !== 'absent' && ownerAlive(moved)) {
        try {
          fs.linkSync(aside, file);
        } catch {
          // A third engine got there first; the moved one still runs and still refuses us.
        }
        fs.rmSync(aside, { force: true });
        throw new DataDirInUseError(dataDir, moved);
      }
      fs.rmSync(aside, { force: true });
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return () => {
    const owner = readOwner(file);
    // Only our own lock: another engine of this process may not release it for us.
    if (owner && owner !== 'absent' && owner.pid === me.pid && owner.startedAt === me.startedAt) fs.rmSync(file, { force: true });
  };
}

/** The pid of a live engine holding `dataDir`, or null. */
export function runningEnginePid(dataDir: string): number | null {
  const owner = readOwner(path.join(dataDir, PID_FILE));
  return owner && owner !== 'absent' && ownerAlive(owner) ? owner.pid : null;
}
