/**
 * Streams a session directory as a zip (yazl): entries are listed first (names only), and each
 * file is opened lazily when yazl reaches it, so a large tree costs one open file and a small
 * buffer at a time. Symlinks and special files are skipped: following them could leave the root.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { ApiError } from '../../http/api-error.js';
import { isInside, resolveSessionPath } from './resolve-session-path.js';
import { mapFsErrors } from './fs-errors.js';

interface Item {
  rel: string;
  host: string;
  dir: boolean;
  mtime: Date;
  mode: number;
}

async function collect(root: string, dir: string, prefix: string, out: Item[]): Promise<void> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    const host = path.join(dir, name);
    const st = await fsp.lstat(host).catch(() => null);
    if (!st || !isInside(root, host)) continue;
    const rel = prefix ? `${prefix}/${name}` : name;
    if (st.isDirectory()) {
      out.push({ rel, host, dir: true, mtime: st.mtime, mode: st.mode });
      await collect(root, host, rel, out);
    } else if (st.isFile()) {
      out.push({ rel, host, dir: false, mtime: st.mtime, mode: st.mode });
    }
  }
}

export async function zipDirectory(root: string, clientPath: unknown): Promise<Readable> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  if (!p.exists) throw new ApiError(404, 'not_found', `no such file or directory: ${p.virtual}`);
  const st = await mapFsErrors(p.virtual, () => fsp.stat(p.host));
  if (!st.isDirectory()) throw new ApiError(400, 'not_a_directory', `${p.virtual} is not a directory`);
  const items: Item[] = [];
  await collect(p.root, p.host, '', items);
  const zip = new yazl.ZipFile();
  for (const item of items) {
    if (item.dir) {
      zip.addEmptyDirectory(item.rel, { mtime: item.mtime, mode: item.mode });
      continue;
    }
    zip.addReadStreamLazy(item.rel, { mtime: item.mtime, mode: item.mode }, (cb) => {
      // A file removed after listing becomes an empty entry rather than a broken archive.
      const nofollow = fs.constants.O_NOFOLLOW ?? 0;
      fs.open(item.host, fs.constants.O_RDONLY | nofollow, (err, fd) => {
        if (err) return cb(null, Readable.from([]));
        cb(null, fs.createReadStream('', { fd }));
      });
    });
  }
  zip.end();
  return zip.outputStream as unknown as Readable;
}

