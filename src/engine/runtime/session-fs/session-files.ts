/**
 * File operations on a session filesystem, each walked by handles inside its root (rooted-fs.ts):
 * streaming read and write (a body is piped to disk chunk by chunk, never buffered whole),
 * directories, listing, info, move, chmod/chown. Functions take the session root and client
 * paths and throw DomainError for anything a client can cause.
 */
import fsp from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { normalizeClientPath } from './client-path.js';
import { notFound, withRoot } from './rooted-fs.js';
import { fileInfoOf, type FileInfo } from './file-info.js';
import { fsError, mapFsErrors } from './fs-errors.js';
import { lookupId } from './account-ids.js';

/** Opens a file for streaming; the caller pipes `stream` to the response. */
export async function openFileForRead(root: string, clientPath: unknown): Promise<{ stream: Readable; size: number; virtual: string }> {
  const { handle, stat, virtual } = await withRoot(root, (r) => r.openForRead(clientPath));
  return { stream: handle.createReadStream({ autoClose: true }), size: stat.size, virtual };
}

/** Streams `body` into a file; `mode` applies to new files and whenever the caller gave one. */
export async function writeFileFromStream(
  root: string,
  clientPath: unknown,
  body: Readable | Buffer | string | undefined,
  mode: number,
  modeGiven: boolean,
): Promise<void> {
  const virtual = normalizeClientPath(clientPath);
  const { handle, created } = await withRoot(root, (r) => r.openForWrite(virtual, mode));
  try {
    await handle.truncate(0);
    if (created || modeGiven) await handle.chmod(mode); // the umask filtered the create mode
    if (body === undefined) {
      // no body: an empty file
    } else if (typeof body === 'string' || Buffer.isBuffer(body)) {
      await handle.write(typeof body === 'string' ? Buffer.from(body) : body);
    } else {
      // The write stream closes the handle when done (a non-closing one never signals completion).
      await pipeline(body, handle.createWriteStream({ start: 0 }));
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    // The session's filesystem is full (its quota): 507, as for any other write into it.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw fsError(err, virtual);
    throw new DomainError(400, 'write_failed', `writing ${virtual} failed: ${(err as Error).message}`);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** `mkdir -p`: an existing directory is fine, an existing file is a 409. */
export async function createDirectory(root: string, clientPath: unknown, mode: number): Promise<void> {
  await withRoot(root, async (r) => {
    for (let attempt = 0; ; attempt++) {
      const p = await r.resolve(clientPath, { followLeaf: true, createParents: true });
      if (p.leaf) {
        if (!p.leaf.stat.isDirectory()) throw DomainError.conflict(`${p.virtual} exists and is not a directory`, 'already_exists');
        return;
      }
      try {
        await fsp.mkdir(r.at(p.parent, p.name), { mode });
        await r.giveToSession(r.at(p.parent, p.name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 3) continue; // raced: look again
        throw err;
      }
      // mkdir's mode is filtered by the umask; chmod the directory just made, by handle.
      const made = await r.pin(r.at(p.parent, p.name));
      if (made?.stat.isDirectory()) await fsp.chmod(made.path, mode).catch(() => {});
      return;
    }
  }).catch(rethrowFor(clientPath));
}

export async function deleteDirectory(root: string, clientPath: unknown): Promise<void> {
  await withRoot(root, async (r) => {
    const p = await r.resolve(clientPath, { followLeaf: false });
    if (p.name === '') throw new DomainError(400, 'invalid_request', 'the session root cannot be deleted');
    if (!p.leaf) throw notFound(p.virtual);
    if (!p.leaf.stat.isDirectory()) throw new DomainError(400, 'not_a_directory', `${p.virtual} is not a directory`);
    await r.removeTree(p.parent, p.name);
  }).catch(rethrowFor(clientPath));
}

export async function deleteFile(root: string, clientPath: unknown): Promise<void> {
  await withRoot(root, async (r) => {
    const p = await r.resolve(clientPath, { followLeaf: false });
    if (!p.leaf) throw notFound(p.virtual);
    if (p.name === '' || p.leaf.stat.isDirectory()) throw new DomainError(400, 'is_a_directory', `${p.virtual} is a directory (use delete_directory)`);
    await fsp.unlink(r.at(p.parent, p.name));
  }).catch(rethrowFor(clientPath));
}

export async function listFiles(root: string, clientPath: unknown): Promise<FileInfo[]> {
  const virtual = normalizeClientPath(clientPath);
  return withRoot(root, async (r) => {
    const p = await r.resolve(virtual, { followLeaf: true });
    if (!p.leaf) throw notFound(virtual);
    if (!p.leaf.stat.isDirectory()) throw new DomainError(400, 'not_a_directory', `${virtual} is not a directory`);
    return (await r.entries(p.leaf)).map((e) => fileInfoOf(virtual === '/' ? `/${e.name}` : `${virtual}/${e.name}`, e.stat));
  }).catch(rethrowFor(virtual));
}

export async function fileInfo(root: string, clientPath: unknown): Promise<FileInfo> {
  const virtual = normalizeClientPath(clientPath);
  return withRoot(root, async (r) => {
    const p = await r.resolve(virtual, { followLeaf: true });
    if (!p.leaf) throw notFound(virtual);
    return fileInfoOf(virtual, p.leaf.stat);
  });
}

export async function movePath(root: string, srcPath: unknown, destPath: unknown): Promise<void> {
  await withRoot(root, async (r) => {
    const src = await r.resolve(srcPath, { followLeaf: false, field: 'src_path' });
    let dest;
    try {
      dest = await r.resolve(destPath, { followLeaf: false, field: 'dest_path' });
    } catch (err) {
      if (err instanceof DomainError && err.status === 404)
        throw new DomainError(404, 'not_found', `the parent directory of ${normalizeClientPath(destPath, 'dest_path')} does not exist`);
      throw err;
    }
    if (src.name === '' || dest.name === '') throw new DomainError(400, 'invalid_request', 'the session root cannot be moved or replaced');
    if (!src.leaf) throw notFound(src.virtual);
    if (dest.leaf) throw DomainError.conflict(`${dest.virtual} already exists`, 'already_exists');
    if (dest.virtual.startsWith(`${src.virtual}/`)) throw new DomainError(400, 'invalid_request', 'cannot move a directory into itself');
    await mapFsErrors(src.virtual, () => fsp.rename(r.at(src.parent, src.name), r.at(dest.parent, dest.name)));
  });
}

export async function setPermissions(root: string, clientPath: unknown, mode: number, owner?: string, group?: string): Promise<void> {
  const uid = owner ? await lookupId('user', owner) : -1;
  const gid = group ? await lookupId('group', group) : -1;
  await withRoot(root, async (r) => {
    const p = await r.resolve(clientPath, { followLeaf: true });
    if (!p.leaf) throw notFound(p.virtual);
    // `p.leaf.path` names the pinned inode itself: a link swapped in afterwards is not followed.
    if (owner || group) {
      // With a jail user, 0 (root) is the session's own user — what its processes see as root
      // (they run as uid 0 mapped onto it); a host-root file would be one nobody there could change.
      const o = r.sessionOwner;
      // The root's owner is the session's jail user (jailUserOf reads it there): another owner would
      // make every later jail of the session run as that host uid.
      if (o && p.name === '' && ((uid !== -1 && uid !== 0 && uid !== o.uid) || (gid !== -1 && gid !== 0 && gid !== o.gid)))
        throw new DomainError(403, 'chown_not_permitted', "the session root's owner is the session's own user and cannot be changed");
      try {
        await fsp.chown(p.leaf.path, o && uid === 0 ? o.uid : uid, o && gid === 0 ? o.gid : gid);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EPERM' || code === 'EACCES')
          throw new DomainError(403, 'chown_not_permitted', 'changing the owner or group is not permitted for this engine (it does not run as root)');
        throw err;
      }
    }
    await fsp.chmod(p.leaf.path, mode);
  }).catch(rethrowFor(clientPath));
}

/** Converts a filesystem error of an operation on `clientPath` into the wire Error. */
function rethrowFor(clientPath: unknown): (err: unknown) => never {
  return (err) => {
    throw fsError(err, typeof clientPath === 'string' ? clientPath : '');
  };
}

/** The normalized path of an existing regular file (404 / 400 otherwise), for tails. */
export async function requireRegularFile(root: string, clientPath: unknown): Promise<string> {
  const virtual = normalizeClientPath(clientPath);
  await withRoot(root, async (r) => {
    const leaf = (await r.resolve(virtual, { followLeaf: true })).leaf;
    if (!leaf) throw new DomainError(404, 'not_found', `no such file: ${virtual}`);
    if (!leaf.stat.isFile()) throw new DomainError(400, 'not_a_file', `${virtual} is not a regular file`);
  });
  return virtual;
}

/** The normalized path of an existing directory (404 / 400 otherwise). */
export async function requireDirectory(root: string, clientPath: unknown, field = 'path'): Promise<string> {
  const virtual = normalizeClientPath(clientPath, field);
  return withRoot(root, async (r) => {
    const p = await r.resolve(virtual, { followLeaf: true, field });
    if (!p.leaf) throw notFound(virtual);
    if (!p.leaf.stat.isDirectory()) throw new DomainError(400, 'not_a_directory', `${virtual} is not a directory`);
    return p.virtual;
  });
}
