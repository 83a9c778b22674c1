/**
 * Puts a deployment's code into its own directory: an uploaded zip (yauzl, streamed, one
 * entry at a time) or, for local development, a copy of a directory on the engine's machine.
 * Zip entries cannot leave the directory: yauzl refuses absolute and `..` names, every target
 * is checked against the root again, and symlink entries are skipped (the directory starts
 * empty, so no link can be followed). Entry count and uncompressed bytes are bounded while
 * streaming (header sizes are not trusted).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { ApiError } from '../../http/api-error.js';

export const ZIP_LIMITS = { entries: 50_000, bytes: 1024 * 1024 * 1024 };

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export async function extractDeploymentZip(zipFile: string, root: string, limits = ZIP_LIMITS): Promise<{ files: number; bytes: number }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(zipFile, { lazyEntries: true, autoClose: true }, (err, z) => (err ? reject(err) : resolve(z))));
  } catch (err) {
    throw new ApiError(400, 'invalid_zip', `file is not a valid zip archive: ${(err as Error).message}`);
  }
  await fsp.mkdir(root, { recursive: true, mode: 0o755 });
  const total = { files: 0, bytes: 0, entries: 0 };
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err) => reject(new ApiError(400, 'invalid_zip', `file could not be read as a zip archive: ${err.message}`)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        extractEntry(zip, entry, root, total, limits).then(
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
  return { files: total.files, bytes: total.bytes };
}

async function extractEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, root: string, total: { files: number; bytes: number; entries: number }, limits: typeof ZIP_LIMITS): Promise<void> {
  if (++total.entries > limits.entries) throw new ApiError(413, 'archive_too_large', `the archive has more than ${limits.entries} entries`);
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
  if ((unixMode & S_IFMT) === S_IFLNK) return;
  const name = entry.fileName.replace(/\/+$/, '');
  if (!name) return;
  const target = path.resolve(root, name);
  const rel = path.relative(root, target);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new ApiError(400, 'invalid_zip', `zip entry '${entry.fileName}' points outside the archive root`);
  if (entry.fileName.endsWith('/')) {
    await fsp.mkdir(target, { recursive: true, mode: 0o755 });
    return;
  }
  await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
  const stream = await zip.openReadStreamPromise(entry);
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      total.bytes += chunk.length;
      if (total.bytes > limits.bytes) cb(new ApiError(413, 'archive_too_large', `the archive unpacks to more than ${limits.bytes} bytes`));
      else cb(null, chunk);
    },
  });
  try {
    await pipeline(stream, counter, fs.createWriteStream(target, { flags: 'wx', mode: (unixMode & 0o777 || 0o644) | 0o600 }));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, 'invalid_zip', `extracting ${entry.fileName} failed: ${(err as Error).message}`);
  }
  total.files++;
}

/** For local deployments: a snapshot of `source` (the deployment keeps working when it changes). */
export async function copyLocalSource(source: string, root: string): Promise<void> {
  await fsp.cp(source, root, { recursive: true, verbatimSymlinks: true, errorOnExist: false, force: true });
}

/** `entrypoint_rel_path` must name a file inside the deployment. */
export function resolveEntrypoint(root: string, rel: string): string {
  const target = path.resolve(root, rel);
  const r = path.relative(root, target);
  if (!r || r.startsWith('..') || path.isAbsolute(r)) throw ApiError.invalidField('entrypoint_rel_path', 'must be a relative path inside the deployed directory');
  return target;
}
