/**
 * The one zip extractor (yauzl, lazy entries, streamed one entry at a time) behind session
 * uploads, app deployments and extensions. It owns what every caller needs: yauzl already
 * refuses absolute and `..` entry names; symlink entries are skipped (a link followed by a later
 * entry through it is the other classic way out); entry count and uncompressed bytes are bounded
 * while streaming, because header sizes cannot be trusted; unreadable archives become 400
 * `invalid_zip`. Where an entry lands is the caller's `UnzipTarget`, which checks each path
 * against its own root again; `unzipIntoDirectory` is that target for a plain directory.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { DomainError } from '../../../shared/errors/domain-error.js';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export interface UnzipLimits {
  entries: number;
  bytes: number;
}

/** Where entries go; `name` is the entry's relative path without a trailing slash. */
export interface UnzipTarget {
  directory(name: string): Promise<void>;
  /** A writable for a file entry (parents created); `mode` comes from the entry (0o644 if none). */
  file(name: string, mode: number): Promise<Writable>;
}

export interface UnzipResult {
  files: number;
  directories: number;
  /** Symlink entries, which are never extracted. */
  skipped: number;
  bytes: number;
}

/**
 * Extracts `zipFile` into `target`. `field` names the upload in error messages (`zip_file`,
 * `file`); exceeding `limits` answers 413 `archive_too_large`; `prepare` runs once the archive
 * has opened (so a file that is not a zip creates nothing).
 */
export async function unzipSafely(
  zipFile: string,
  target: UnzipTarget,
  opts: { field: string; limits?: UnzipLimits; prepare?: () => Promise<void> },
): Promise<UnzipResult> {
  const limits = opts.limits ?? { entries: Infinity, bytes: Infinity };
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(zipFile, { lazyEntries: true, autoClose: true }, (err, z) => (err ? reject(err) : resolve(z))),
    );
  } catch (err) {
    throw new DomainError(400, 'invalid_zip', `${opts.field} is not a valid zip archive: ${(err as Error).message}`);
  }
  const result: UnzipResult = { files: 0, directories: 0, skipped: 0, bytes: 0 };
  let entries = 0;
  try {
    await opts.prepare?.();
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err) => reject(new DomainError(400, 'invalid_zip', `${opts.field} could not be read as a zip archive: ${err.message}`)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const work =
          ++entries > limits.entries
            ? Promise.reject(new DomainError(413, 'archive_too_large', `the archive has more than ${limits.entries} entries`))
            : extractEntry(zip, entry, target, result, limits);
        work.then(
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

/**
 * Extracts into a plain directory `root` (created once the archive opens) — what deployments and
 * extensions need. Every entry is resolved against `root` again; files are created exclusively
 * (`wx`), so a duplicate entry fails. `onFile` sees each file entry's name (e.g. to find a manifest).
 */
export async function unzipIntoDirectory(
  zipFile: string,
  root: string,
  opts: { field: string; limits?: UnzipLimits; onFile?: (name: string) => void },
): Promise<UnzipResult> {
  const inside = (name: string) => {
    const target = path.resolve(root, name);
    const rel = path.relative(root, target);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new DomainError(400, 'invalid_zip', `zip entry '${name}' points outside the archive root`);
    return target;
  };
  const target: UnzipTarget = {
    async directory(name) {
      await fsp.mkdir(inside(name), { recursive: true, mode: 0o755 });
    },
    async file(name, mode) {
      const file = inside(name);
      opts.onFile?.(name);
      await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
      return fs.createWriteStream(file, { flags: 'wx', mode: mode | 0o600 });
    },
  };
  const prepare = async () => {
    await fsp.mkdir(root, { recursive: true, mode: 0o755 });
  };
  return unzipSafely(zipFile, target, { field: opts.field, limits: opts.limits, prepare });
}

async function extractEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, target: UnzipTarget, result: UnzipResult, limits: UnzipLimits): Promise<void> {
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
  if ((unixMode & S_IFMT) === S_IFLNK) {
    result.skipped++;
    return;
  }
  const name = entry.fileName.replace(/\/+$/, '');
  if (!name) return;
  if (entry.fileName.endsWith('/')) {
    await target.directory(name);
    result.directories++;
    return;
  }
  const out = await target.file(name, unixMode & 0o777 || 0o644);
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      result.bytes += chunk.length;
      if (result.bytes > limits.bytes) cb(new DomainError(413, 'archive_too_large', `the archive unpacks to more than ${limits.bytes} bytes`));
      else cb(null, chunk);
    },
  });
  try {
    // pipeline destroys `out` on failure, which closes whatever the target opened.
    await pipeline(await zip.openReadStreamPromise(entry), counter, out);
  } catch (err) {
    out.destroy();
    if (err instanceof DomainError) throw err;
    throw new DomainError(400, 'invalid_zip', `extracting ${entry.fileName} failed: ${(err as Error).message}`);
  }
  result.files++;
}
