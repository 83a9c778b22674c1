/**
 * `tail` of a file in a session filesystem, line by line: the current content first, then (when
 * following) lines as they are appended. Truncation (size shrinks) restarts from the top;
 * rotation (the path now names another inode) reopens the new file, re-resolved through the
 * path sandbox each time so a swapped-in symlink cannot lead outside. Change notifications come
 * from `fs.watch` with a slow stat poll as a fallback (rotations replace the watched inode).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { openInsideRoot, resolveSessionPath } from './session-fs/resolve-session-path.js';

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
  let resolved = await resolveSessionPath(opts.root, opts.path, { followLeaf: true });
  let handle = await openInsideRoot(resolved, fs.constants.O_RDONLY);
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
        watcher = fs.watch(resolved.host, { persistent: false }, () => wake());
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
        const current = await fsp.stat(resolved.host).catch(() => null);
        if (current && current.ino !== ino) {
          // Rotated: finish the old file, then start the new one from the top.
          await drain();
          emit(decoder.end(), true);
          await handle.close();
          resolved = await resolveSessionPath(opts.root, opts.path, { followLeaf: true });
          handle = await openInsideRoot(resolved, fs.constants.O_RDONLY);
          ino = (await handle.stat()).ino;
          pos = 0;
          decoder = new StringDecoder('utf8');
          rewatch();
        } else if (current && current.size < pos) {
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
