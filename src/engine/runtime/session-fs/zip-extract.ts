/**
 * Extracts an uploaded zip into a session directory through the shared `unzipSafely` walker.
 * Zip-slip is impossible twice over: yauzl rejects absolute and `..` entry names, and every
 * destination is walked by handles inside the session root (rooted-fs.ts), so a link already in
 * the session's filesystem, or raced into it during the extraction, leads nowhere outside;
 * symlink entries are skipped by the walker.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { unzipSafely, type UnzipTarget } from '../zip/unzip-safely.js';
import { normalizeClientPath } from './client-path.js';
import { RootedFs } from './rooted-fs.js';
import { fsError } from './fs-errors.js';

export interface ExtractResult {
  files: number;
  directories: number;
  skipped: number;
}

async function mkdirIn(r: RootedFs, virtual: string, field: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const t = await r.resolve(virtual, { followLeaf: true, createParents: true, field });
    if (t.leaf) {
      if (!t.leaf.stat.isDirectory()) throw new DomainError(400, 'not_a_directory', `${t.virtual} is not a directory`);
      return;
    }
    try {
      await fsp.mkdir(r.at(t.parent, t.name), { mode: 0o755 });
      return await r.giveToSession(r.at(t.parent, t.name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw fsError(err, t.virtual);
    }
  }
}

export async function extractZip(root: string, zipFile: string, destClientPath: unknown): Promise<ExtractResult> {
  const dest = normalizeClientPath(destClientPath, 'dest_path');
  const r = await RootedFs.open(root);
  try {
    const entryPath = (name: string) => normalizeClientPath(path.posix.join(dest, name), 'zip entry');
    const target: UnzipTarget = {
      directory: (name) => mkdirIn(r, entryPath(name), 'zip entry'),
      async file(name, mode) {
        const { handle } = await r.openForWrite(entryPath(name), mode);
        try {
          await handle.truncate(0);
          await handle.chmod(mode);
        } catch (err) {
          await handle.close().catch(() => {});
          throw err;
        }
        return handle.createWriteStream({ start: 0 });
      },
    };
    const prepare = () => mkdirIn(r, dest, 'dest_path');
    const { files, directories, skipped } = await unzipSafely(zipFile, target, { field: 'zip_file', prepare });
    return { files, directories, skipped };
  } finally {
    await r.close();
  }
}
