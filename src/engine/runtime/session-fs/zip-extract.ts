/**
 * Extracts an uploaded zip into a session directory through the shared `unzipSafely` walker.
 * Zip-slip is impossible twice over: yauzl rejects absolute and `..` entry names, and every
 * destination still goes through `resolveSessionPath` (no following links already in the
 * session's filesystem); symlink entries are skipped by the walker.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../../http/api-error.js';
import { unzipSafely, type UnzipTarget } from '../zip/unzip-safely.js';
import { openInsideRoot, resolveSessionPath } from './resolve-session-path.js';
import { mapFsErrors } from './fs-errors.js';

export interface ExtractResult {
  files: number;
  directories: number;
  skipped: number;
}

export async function extractZip(root: string, zipFile: string, destClientPath: unknown): Promise<ExtractResult> {
  const dest = await resolveSessionPath(root, destClientPath, { followLeaf: true, field: 'dest_path' });
  if (dest.exists && !(await fsp.stat(dest.host)).isDirectory()) throw new ApiError(400, 'not_a_directory', `${dest.virtual} is not a directory`);
  const resolveEntry = (name: string) => resolveSessionPath(root, path.posix.join(dest.virtual, name), { followLeaf: false, field: 'zip entry' });
  const target: UnzipTarget = {
    async directory(name) {
      const t = await resolveEntry(name);
      await mapFsErrors(t.virtual, () => fsp.mkdir(t.host, { recursive: true, mode: 0o755 }));
    },
    async file(name, mode) {
      const t = await resolveEntry(name);
      await mapFsErrors(t.virtual, () => fsp.mkdir(path.dirname(t.host), { recursive: true, mode: 0o755 }));
      const handle = await mapFsErrors(t.virtual, () => openInsideRoot(t, fs.constants.O_WRONLY | fs.constants.O_CREAT, mode));
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
  const prepare = async () => {
    await mapFsErrors(dest.virtual, () => fsp.mkdir(dest.host, { recursive: true, mode: 0o755 }));
  };
  const { files, directories, skipped } = await unzipSafely(zipFile, target, { field: 'zip_file', prepare });
  return { files, directories, skipped };
}
