/**
 * Reading Linux /proc in tests: a process's command line, parent, descendants (jails put
 * their processes in their own sessions and pid namespaces, so trees are followed rather than
 * process groups), socket inodes, and the host's listening TCP sockets.
 */
import fs from 'node:fs';

function readOr(p: string): string {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

function readdirOr(p: string): string[] {
  try {
    return fs.readdirSync(p);
  } catch {
    return [];
  }
}

/** The command line with spaces between arguments ('' once the process is gone). */
export function cmdlineOf(pid: number): string {
  return readOr(`/proc/${pid}/cmdline`).replace(/\0/g, ' ');
}

export function parentOf(pid: number): number {
  const stat = readOr(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = readOr(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** Pids whose command line contains `marker`. */
export function pidsWith(marker: string): number[] {
  return readdirOr('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => cmdlineOf(pid).includes(marker));
}

/** `pid` and every process below it. */
export function descendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    for (const task of readdirOr(`/proc/${out[i]}/task`)) {
      const kids = readOr(`/proc/${out[i]}/task/${task}/children`).trim();
      if (kids) out.push(...kids.split(/\s+/).map(Number));
    }
  }
  return out;
}

export function socketInodes(pid: number): string[] {
  return readdirOr(`/proc/${pid}/fd`)
    .map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      } catch {
        return undefined;
      }
    })
    .filter((x): x is string => !!x);
}

/** Inodes of TCP sockets in LISTEN state in this (the host's) network namespace. */
export function listeningInodes(): Set<string> {
  const out = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readOr(file).split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') out.add(cols[9]);
    }
  }
  return out;
}
