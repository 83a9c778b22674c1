/**
 * What the fs watch tests share: collecting a watch's events, and reading which inodes a
 * process watches (`/proc/<pid>/fdinfo`) against the directories of a host tree.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Kernel from '@onkernel/sdk';

export interface Event {
  type: string;
  path: string;
  is_dir?: boolean;
  name?: string;
}

/** Collects a watch's events until `stop()`; `ended` resolves when the stream closes. */
export async function collect(client: Kernel, id: string, watchId: string): Promise<{ seen: Event[]; ended: Promise<void>; stop: () => void }> {
  const stream = await client.browsers.fs.watch.events(watchId, { id });
  const seen: Event[] = [];
  const ended = (async () => {
    try {
      for await (const e of stream) seen.push(e as Event);
    } catch {
      /* aborted */
    }
  })();
  return { seen, ended, stop: () => stream.controller.abort() };
}

export async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

/** Inodes of the inotify watches a process holds (`/proc/<pid>/fdinfo`). */
export function inotifyInodes(pid: number | string): number[] {
  const out: number[] = [];
  let fds: string[] = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fdinfo`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    let text = '';
    try {
      text = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+) /gm)) out.push(Number.parseInt(m[1], 16));
  }
  return out;
}

function parentOf(pid: number): number {
  try {
    return Number(/^PPid:\t(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Host pids of this engine's (this process's) watchers: their command line names the watcher script. */
export function watcherPids(): number[] {
  const pids: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      if (!cmd.some((a) => a.endsWith('fs-watcher-child.mjs')) || cmd[0].endsWith('sh') || cmd[0].endsWith('bwrap')) continue;
      let p = Number(e);
      for (let i = 0; i < 8 && p > 1 && p !== process.pid; i++) p = parentOf(p);
      if (p === process.pid) pids.push(Number(e));
    } catch {}
  }
  return pids;
}

/** Inode numbers of every directory in a host tree, links not followed. */
export function dirInodes(dir: string): Set<number> {
  const out = new Set<number>();
  const walk = (d: string) => {
    out.add(fs.lstatSync(d).ino);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  walk(dir);
  return out;
}
