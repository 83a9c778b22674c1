/**
 * `tail` of a file in a session filesystem, line by line: the current content first, then (when
 * following) lines as they are appended. Truncation (size shrinks) restarts from the top;
 * rotation (the path now names another inode) reopens the new file, walked again by handles
 * inside the session root each time so a swapped-in symlink cannot lead outside. Change
 * notifications come from `fs.watch` on the open file with a slow poll of the path as a fallback
 * (rotations replace the watched inode).
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { withRoot } from './session-fs/rooted-fs.js';

const CHUNK = 64 * 1024;
const POLL_MS = 500;
const MAX_LINE = 64 * 1024;

export interface TailOptions {
  root: string;
  path: string;
  follow: boolean;
  signal: AbortSignal;
  onLine(line: string): void;
}

/** Runs until the file is read (follow=false) or `signal` aborts. Resolves when done. */
export async function tailFile(opts: TailOptions): Promise<void> {
  const open = () => withRoot(opts.root, (r) => r.openForRead(opts.path));
  /** What the path names now (links followed inside the root); null when nothing. */
  const current = () => withRoot(opts.root, async (r) => (await r.resolve(opts.path, { followLeaf: true })).leaf?.stat ?? null).catch(() => null);
  let handle = (await open()).handle;
  let ino = (await handle.stat()).ino;
  let pos = 0;
  let partial = '';
  let decoder = new StringDecoder('utf8');
  const buf = Buffer.alloc(CHUNK);

  const emit = (text: string, final: boolean) => {
    const all = partial + text;
    const lines = all.split('\n');
    partial = final ? '' : (lines.pop() ?? '');
    if (final && lines[lines.length - 1] === '') lines.pop();
    if (partial.length > MAX_LINE) {
      lines.push(partial);
      partial = '';
    }
    for (const l of lines) opts.onLine(l.replace(/\r$/, ''));
  };

  const drain = async () => {
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, pos);
      if (bytesRead === 0) return;
      pos += bytesRead;
      emit(decoder.write(buf.subarray(0, bytesRead)), false);
    }
  };

  try {
    await drain();
    if (!opts.follow || opts.signal.aborted) {
      emit(decoder.end(), true);
      return;
    }
    let wake: () => void = () => {};
    let watcher: fs.FSWatcher | undefined;
    const rewatch = () => {
      watcher?.close();
      try {
        // The open descriptor's /proc link names the inode being read, not whatever the path now names.
        watcher = fs.watch(process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : path.join(opts.root, opts.path), { persistent: false }, () => wake());
        watcher.on('error', () => {});
      } catch {
        watcher = undefined;
      }
    };
    rewatch();
    const timer = setInterval(() => wake(), POLL_MS);
    opts.signal.addEventListener('abort', () => wake(), { once: true });
    try {
      while (!opts.signal.aborted) {
        await new Promise<void>((r) => (wake = r));
        if (opts.signal.aborted) break;
        const now = await current();
        if (now && now.ino !== ino) {
          // Rotated: finish the old file, then start the new one from the top.
          await drain();
          emit(decoder.end(), true);
          await handle.close();
          handle = (await open()).handle;
          ino = (await handle.stat()).ino;
          pos = 0;
          decoder = new StringDecoder('utf8');
          rewatch();
        } else if (now && now.size < pos) {
          pos = 0; // truncated
          partial = '';
        }
        await drain();
      }
    } finally {
      clearInterval(timer);
      watcher?.close();
    }
  } finally {
    await handle.close().catch(() => {});
  }
}
