/**
 * Extracts an uploaded zip into a session directory (yauzl, one entry at a time, streamed).
 * Zip-slip is impossible twice over: yauzl rejects absolute and `..` entry names, and every
 * destination still goes through `resolveSessionPath`. Symlink entries are skipped, because a
 * link followed by a later entry through it is the other classic way out.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { ApiError } from '../../http/api-error.js';
import { openInsideRoot, resolveSessionPath } from './resolve-session-path.js';
import { mapFsErrors } from './fs-errors.js';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export interface ExtractResult {
  files: number;
  directories: number;
  skipped: number;
}

export async function extractZip(root: string, zipFile: string, destClientPath: unknown): Promise<ExtractResult> {
  const dest = await resolveSessionPath(root, destClientPath, { followLeaf: true, field: 'dest_path' });
  if (dest.exists && !(await fsp.stat(dest.host)).isDirectory()) throw new ApiError(400, 'not_a_directory', `${dest.virtual} is not a directory`);
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(zipFile, { lazyEntries: true, autoClose: true }, (err, z) => (err ? reject(err) : resolve(z))));
  } catch (err) {
    throw new ApiError(400, 'invalid_zip', `zip_file is not a valid zip archive: ${(err as Error).message}`);
  }
  await mapFsErrors(dest.virtual, () => fsp.mkdir(dest.host, { recursive: true, mode: 0o755 }));
  const result: ExtractResult = { files: 0, directories: 0, skipped: 0 };
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err) => reject(new ApiError(400, 'invalid_zip', `zip_file could not be read: ${err.message}`)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        extractEntry(root, zip, entry, dest.virtual, result).then(
          () => zip.readEntry(),
          (err) => {
            zip.close();
            reject(err);
          },
        );
      });
      zip.readEntry();
    });
  } finally {
    if (zip.isOpen) zip.close();
  }
  return result;
}

async function extractEntry(root: string, zip: yauzl.ZipFile, entry: yauzl.Entry, destVirtual: string, result: ExtractResult): Promise<void> {
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
  if ((unixMode & S_IFMT) === S_IFLNK) {
    result.skipped++;
    return;
  }
  const name = entry.fileName.replace(/\/+$/, '');
  if (!name) return;
  const target = await resolveSessionPath(root, path.posix.join(destVirtual, name), { followLeaf: false, field: 'zip entry' });
  if (entry.fileName.endsWith('/')) {
    await mapFsErrors(target.virtual, () => fsp.mkdir(target.host, { recursive: true, mode: 0o755 }));
    result.directories++;
    return;
  }
  await mapFsErrors(target.virtual, () => fsp.mkdir(path.dirname(target.host), { recursive: true, mode: 0o755 }));
  const perm = unixMode & 0o777 || 0o644;
  const handle = await mapFsErrors(target.virtual, () => openInsideRoot(target, fs.constants.O_WRONLY | fs.constants.O_CREAT, perm));
  try {
    await handle.truncate(0);
    await handle.chmod(perm);
    const stream = await zip.openReadStreamPromise(entry);
    await pipeline(stream, handle.createWriteStream({ start: 0 }));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, 'invalid_zip', `extracting ${entry.fileName} failed: ${(err as Error).message}`);
  } finally {
    await handle.close().catch(() => {});
  }
  result.files++;
}
