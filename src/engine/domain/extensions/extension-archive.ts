/**
 * What makes a zip an unpacked Chromium extension here: a `manifest.json` at the archive root
 * or inside its single top-level folder (what zipping the extension's folder produces). Both
 * the upload check and the unpacking into a session go through the shared `unzipSafely`
 * walker (no zip-slip, symlink entries skipped, entry count and unpacked bytes bounded); the
 * check streams every entry to nowhere, so a corrupt archive is refused at upload, not at the
 * first session that uses it.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ApiError } from '../../http/api-error.js';
import { unzipSafely, type UnzipLimits, type UnzipTarget } from '../../runtime/zip/unzip-safely.js';

export const EXTENSION_ZIP_LIMITS: UnzipLimits = { entries: 20_000, bytes: 512 * 1024 * 1024 };

/** The folder inside the archive holding manifest.json: '' for the root, else `<top>`. */
export function manifestFolder(files: string[], field: string): string {
  if (files.includes('manifest.json')) return '';
  const tops = new Set(files.map((f) => f.split('/')[0]));
  if (tops.size === 1) {
    const [top] = [...tops];
    if (files.includes(`${top}/manifest.json`)) return top;
  }
  throw ApiError.unprocessable(`${field} is not an unpacked browser extension: no manifest.json at the root of the zip (or in its single top folder)`, 'invalid_extension');
}

/** Reads the whole archive (all checks, nothing written) and returns where its manifest is. */
export async function inspectExtensionZip(zipFile: string, field: string): Promise<string> {
  const files: string[] = [];
  const target: UnzipTarget = {
    async directory() {},
    async file(name) {
      files.push(name);
      return new Writable({ write: (_c, _e, cb) => cb() });
    },
  };
  await unzipSafely(zipFile, target, { field, limits: EXTENSION_ZIP_LIMITS });
  return manifestFolder(files, field);
}

/**
 * Unpacks an extension zip into `dir` (created; must not exist yet) and returns the directory
 * that holds manifest.json — the one to give Chromium's --load-extension.
 */
export async function unpackExtension(zipFile: string, dir: string, field: string): Promise<string> {
  const files: string[] = [];
  const inside = (name: string) => {
    const p = path.resolve(dir, name);
    const rel = path.relative(dir, p);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new ApiError(400, 'invalid_zip', `zip entry '${name}' points outside the archive root`);
    return p;
  };
  const target: UnzipTarget = {
    async directory(name) {
      await fsp.mkdir(inside(name), { recursive: true, mode: 0o755 });
    },
    async file(name, mode) {
      const p = inside(name);
      files.push(name);
      await fsp.mkdir(path.dirname(p), { recursive: true, mode: 0o755 });
      return fs.createWriteStream(p, { flags: 'wx', mode: mode | 0o600 });
    },
  };
  await unzipSafely(zipFile, target, { field, limits: EXTENSION_ZIP_LIMITS, prepare: () => fsp.mkdir(dir, { recursive: true, mode: 0o755 }).then(() => {}) });
  const folder = manifestFolder(files, field);
  return folder ? path.join(dir, folder) : dir;
}
