/**
 * What makes a zip an unpacked Chromium extension here: a `manifest.json` at the archive root
 * or inside its single top-level folder (what zipping the extension's folder produces). Both
 * the upload check and the unpacking into a session go through the shared `unzipSafely` /
 * `unzipIntoDirectory` walker (no zip-slip, symlink entries skipped, entry count and unpacked bytes bounded); the
 * check streams every entry to nowhere, so a corrupt archive is refused at upload, not at the
 * first session that uses it.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { unzipIntoDirectory, unzipSafely, type UnzipLimits, type UnzipTarget } from '../../runtime/zip/unzip-safely.js';

export const EXTENSION_ZIP_LIMITS: UnzipLimits = { entries: 20_000, bytes: 512 * 1024 * 1024 };

/** The folder inside the archive holding manifest.json: '' for the root, else `<top>`. */
export function manifestFolder(files: string[], field: string): string {
  if (files.includes('manifest.json')) return '';
  const tops = new Set(files.map((f) => f.split('/')[0]));
  if (tops.size === 1) {
    const [top] = [...tops];
    if (files.includes(`${top}/manifest.json`)) return top;
  }
  throw DomainError.unprocessable(
    `${field} is not an unpacked browser extension: no manifest.json at the root of the zip (or in its single top folder)`,
    'invalid_extension',
  );
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
  await unzipIntoDirectory(zipFile, dir, { field, limits: EXTENSION_ZIP_LIMITS, onFile: (name) => files.push(name) });
  const folder = manifestFolder(files, field);
  return folder ? path.join(dir, folder) : dir;
}
