/**
 * File operations on a session filesystem, all through `resolveSessionPath`: streaming read and
 * write (a body is piped to disk chunk by chunk, never buffered whole), directories, listing,
 * info, move, chmod/chown. Functions take the session root and client paths and throw ApiError
 * for anything a client can cause.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { ApiError } from '../../http/api-error.js';
import { resolveSessionPath, openInsideRoot, type SessionPath } from './resolve-session-path.js';
import { fileInfoOf, type FileInfo } from './file-info.js';
import { mapFsErrors } from './fs-errors.js';
import { lookupId } from './account-ids.js';

function notFound(p: SessionPath): ApiError {
  return new ApiError(404, 'not_found', `no such file or directory: ${p.virtual}`);
}

async function statExisting(p: SessionPath, follow: boolean): Promise<fs.Stats> {
  if (!p.exists) throw notFound(p);
  return mapFsErrors(p.virtual, () => (follow ? fsp.stat(p.host) : fsp.lstat(p.host)));
}

/** Opens a file for streaming; the caller pipes `stream` to the response. */
export async function openFileForRead(root: string, clientPath: unknown): Promise<{ stream: Readable; size: number; path: SessionPath }> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  const st = await statExisting(p, true);
  if (st.isDirectory()) throw new ApiError(400, 'is_a_directory', `${p.virtual} is a directory`);
  if (!st.isFile()) throw new ApiError(400, 'not_a_file', `${p.virtual} is not a regular file`);
  const handle = await mapFsErrors(p.virtual, () => openInsideRoot(p, fs.constants.O_RDONLY));
  return { stream: handle.createReadStream({ autoClose: true }), size: st.size, path: p };
}

/** Creates missing parent directories of an already-resolved path (all inside the real root). */
async function ensureParent(p: SessionPath): Promise<void> {
  const parent = path.dirname(p.host);
  const st = await fsp.stat(parent).catch(() => null);
  if (st && !st.isDirectory()) throw new ApiError(400, 'not_a_directory', `the parent of ${p.virtual} is not a directory`);
  if (!st) await mapFsErrors(p.virtual, () => fsp.mkdir(parent, { recursive: true, mode: 0o755 }));
}

/** Streams `body` into a file; `mode` applies to new files and whenever the caller gave one. */
export async function writeFileFromStream(root: string, clientPath: unknown, body: Readable | Buffer | string | undefined, mode: number, modeGiven: boolean): Promise<void> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  if (p.virtual === '/') throw new ApiError(400, 'is_a_directory', '/ is a directory');
  if (p.exists) {
    const st = await mapFsErrors(p.virtual, () => fsp.stat(p.host));
    if (st.isDirectory()) throw new ApiError(400, 'is_a_directory', `${p.virtual} is a directory`);
  } else {
    await ensureParent(p);
  }
  const handle = await mapFsErrors(p.virtual, () => openInsideRoot(p, fs.constants.O_WRONLY | fs.constants.O_CREAT, mode));
  try {
    await handle.truncate(0);
    if (!p.exists || modeGiven) await handle.chmod(mode);
    if (body === undefined) {
      // no body: an empty file
    } else if (typeof body === 'string' || Buffer.isBuffer(body)) {
      await handle.write(typeof body === 'string' ? Buffer.from(body) : body);
    } else {
      // The write stream closes the handle when done (a non-closing one never signals completion).
      await pipeline(body, handle.createWriteStream({ start: 0 }));
    }
  } catch (err) {
    throw err instanceof ApiError ? err : new ApiError(400, 'write_failed', `writing ${p.virtual} failed: ${(err as Error).message}`);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** `mkdir -p`: an existing directory is fine, an existing file is a 409. */
export async function createDirectory(root: string, clientPath: unknown, mode: number): Promise<void> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  if (p.exists) {
    const st = await mapFsErrors(p.virtual, () => fsp.stat(p.host));
    if (!st.isDirectory()) throw ApiError.conflict(`${p.virtual} exists and is not a directory`, 'already_exists');
    return;
  }
  await mapFsErrors(p.virtual, () => fsp.mkdir(p.host, { recursive: true, mode }));
  await fsp.chmod(p.host, mode).catch(() => {}); // mkdir's mode is filtered by the umask
}

export async function deleteDirectory(root: string, clientPath: unknown): Promise<void> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: false });
  if (p.virtual === '/') throw new ApiError(400, 'invalid_request', 'the session root cannot be deleted');
  const st = await statExisting(p, false);
  if (!st.isDirectory()) throw new ApiError(400, 'not_a_directory', `${p.virtual} is not a directory`);
  await mapFsErrors(p.virtual, () => fsp.rm(p.host, { recursive: true, force: false }));
}

export async function deleteFile(root: string, clientPath: unknown): Promise<void> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: false });
  const st = await statExisting(p, false);
  if (st.isDirectory()) throw new ApiError(400, 'is_a_directory', `${p.virtual} is a directory (use delete_directory)`);
  await mapFsErrors(p.virtual, () => fsp.unlink(p.host));
}

export async function listFiles(root: string, clientPath: unknown): Promise<FileInfo[]> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  const st = await statExisting(p, true);
  if (!st.isDirectory()) throw new ApiError(400, 'not_a_directory', `${p.virtual} is not a directory`);
  const names = await mapFsErrors(p.virtual, () => fsp.readdir(p.host));
  const out: FileInfo[] = [];
  for (const name of names.sort()) {
    const est = await fsp.lstat(path.join(p.host, name)).catch(() => null); // removed meanwhile
    if (est) out.push(fileInfoOf(p.virtual === '/' ? `/${name}` : `${p.virtual}/${name}`, est));
  }
  return out;
}

export async function fileInfo(root: string, clientPath: unknown): Promise<FileInfo> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  return fileInfoOf(p.virtual, await statExisting(p, true));
}

export async function movePath(root: string, srcPath: unknown, destPath: unknown): Promise<void> {
  const src = await resolveSessionPath(root, srcPath, { followLeaf: false, field: 'src_path' });
  const dest = await resolveSessionPath(root, destPath, { followLeaf: false, field: 'dest_path' });
  if (src.virtual === '/' || dest.virtual === '/') throw new ApiError(400, 'invalid_request', 'the session root cannot be moved or replaced');
  await statExisting(src, false);
  if (dest.exists) throw ApiError.conflict(`${dest.virtual} already exists`, 'already_exists');
  if (dest.virtual.startsWith(`${src.virtual}/`)) throw new ApiError(400, 'invalid_request', 'cannot move a directory into itself');
  const parent = await fsp.stat(path.dirname(dest.host)).catch(() => null);
  if (!parent) throw new ApiError(404, 'not_found', `the parent directory of ${dest.virtual} does not exist`);
  if (!parent.isDirectory()) throw new ApiError(400, 'not_a_directory', `the parent of ${dest.virtual} is not a directory`);
  await mapFsErrors(src.virtual, () => fsp.rename(src.host, dest.host));
}

export async function setPermissions(root: string, clientPath: unknown, mode: number, owner?: string, group?: string): Promise<void> {
  const p = await resolveSessionPath(root, clientPath, { followLeaf: true });
  await statExisting(p, true);
  if (owner || group) {
    const uid = owner ? await lookupId('user', owner) : -1;
    const gid = group ? await lookupId('group', group) : -1;
    try {
      await fsp.chown(p.host, uid, gid);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPERM' || code === 'EACCES') throw new ApiError(403, 'chown_not_permitted', 'changing the owner or group is not permitted for this engine (it does not run as root)');
      throw err;
    }
  }
  await mapFsErrors(p.virtual, () => fsp.chmod(p.host, mode));
}
