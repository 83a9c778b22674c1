/**
 * Puts a deployment's code into its own directory: an uploaded zip (through the shared
 * `unzipIntoDirectory` walker: streamed, symlink entries skipped, entry count and uncompressed
 * bytes bounded) or, for local development, a copy of a directory on the engine's machine. Zip
 * entries cannot leave the directory: yauzl refuses absolute and `..` names and every target is
 * checked against the root again; files are created exclusively (`wx`), so a duplicate entry fails.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { unzipIntoDirectory, type UnzipLimits } from '../../runtime/zip/unzip-safely.js';

export const ZIP_LIMITS: UnzipLimits = { entries: 50_000, bytes: 1024 * 1024 * 1024 };

export async function extractDeploymentZip(zipFile: string, root: string, limits = ZIP_LIMITS): Promise<{ files: number; bytes: number }> {
  const { files, bytes } = await unzipIntoDirectory(zipFile, root, { field: 'file', limits });
  return { files, bytes };
}

/** For local deployments: a snapshot of `source` (the deployment keeps working when it changes). */
export async function copyLocalSource(source: string, root: string): Promise<void> {
  await fsp.cp(source, root, { recursive: true, verbatimSymlinks: true, errorOnExist: false, force: true });
}

/** `entrypoint_rel_path` must name a file inside the deployment. */
export function resolveEntrypoint(root: string, rel: string): string {
  const target = path.resolve(root, rel);
  const r = path.relative(root, target);
  if (!r || r.startsWith('..') || path.isAbsolute(r))
    throw DomainError.invalidField('entrypoint_rel_path', 'must be a relative path inside the deployed directory');
  return target;
}
