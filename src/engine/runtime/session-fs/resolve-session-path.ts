/**
 * The one path sandbox of the session filesystem. Every `/fs/*` route, process `cwd`, log tail
 * and upload destination goes through `resolveSessionPath`: a client path is absolute inside the
 * session (`/` = the session root), may not contain `..` segments, NUL bytes or drive letters,
 * and after resolving symlinks (`fs.realpath` of the deepest existing ancestor, and of the leaf
 * when the operation follows it) must still lie inside the real root. Symlinks planted by session
 * processes (`ln -s /etc/passwd /x`) therefore resolve to a host path outside the root and are
 * refused. A residual race remains between this check and the later open (a process swapping a
 * parent directory for a symlink in between); `openInsideRoot` closes it for opens by checking
 * the opened descriptor's real path (`/proc/self/fd`) before any byte moves.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../../http/api-error.js';

export interface SessionPath {
  /** The normalized client path, e.g. `/downloads/a.txt` (`/` for the root). */
  virtual: string;
  /** The host path to operate on (parents symlink-free and inside the root). */
  host: string;
  /** The real path of the session root. */
  root: string;
  /** Whether `host` exists (lstat) at resolution time. */
  exists: boolean;
}

export interface ResolveOptions {
  /** Follow a symlink at the leaf (reads, writes, listing); false for delete/move/chmod of the link itself. */
  followLeaf?: boolean;
  /** The field name for error messages (`path`, `dest_path`, `cwd`…). */
  field?: string;
}

const realRoots = new Map<string, string>();

async function realRootOf(root: string): Promise<string> {
  const cached = realRoots.get(root);
  if (cached) return cached;
  const real = await fsp.realpath(root);
  if (realRoots.size > 1000) realRoots.clear();
  realRoots.set(root, real);
  return real;
}

/** Syntax checks only; returns the normalized virtual path. */
export function normalizeClientPath(p: unknown, field = 'path'): string {
  if (typeof p !== 'string' || p.length === 0) throw ApiError.invalidField(field, 'is required');
  if (p.includes('\0')) throw ApiError.invalidField(field, 'must not contain NUL bytes');
  if (/^[a-zA-Z]:/.test(p) || p.startsWith('\\\\')) throw ApiError.invalidField(field, 'must be an absolute POSIX path inside the session (drive letters are not paths here)');
  if (!p.startsWith('/')) throw ApiError.invalidField(field, 'must be an absolute path starting with /');
  if (p.length > 4096) throw ApiError.invalidField(field, 'is too long');
  const segments = p.split('/');
  if (segments.includes('..')) throw ApiError.invalidField(field, "must not contain '..' segments");
  // On Windows hosts a backslash would be a separator and could smuggle `..` past the check above.
  if (process.platform === 'win32' && /[\\:]/.test(p)) throw ApiError.invalidField(field, 'must not contain backslashes or colons');
  const normalized = path.posix.normalize(p).replace(/\/+$/, '');
  return normalized === '' ? '/' : normalized;
}

export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const rel = path.relative(root, candidate);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function escapeError(field: string): ApiError {
  return new ApiError(403, 'path_outside_session', `${field} resolves outside the session filesystem`);
}

async function lstatOrNull(p: string): Promise<fs.Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * Resolves a client path against a session root. Throws ApiError 400 for malformed paths and
 * 403 `path_outside_session` when symlinks would lead outside the root.
 */
export async function resolveSessionPath(rootDir: string, clientPath: unknown, opts: ResolveOptions = {}): Promise<SessionPath> {
  const field = opts.field ?? 'path';
  const virtual = normalizeClientPath(clientPath, field);
  const root = await realRootOf(rootDir);
  if (virtual === '/') return { virtual, host: root, root, exists: true };
  const segments = virtual.split('/').filter(Boolean);
  const leaf = segments.pop() as string;

  // Walk the parent chain, resolving each existing component; stop at the first missing one.
  let current = root;
  let missing = false;
  for (const seg of segments) {
    const next = path.join(current, seg);
    if (missing) {
      current = next;
      continue;
    }
    const st = await lstatOrNull(next);
    if (!st) {
      missing = true;
      current = next;
      continue;
    }
    current = st.isSymbolicLink() ? await fsp.realpath(next).catch(() => next) : next;
    if (!isInside(root, current)) throw escapeError(field);
    if (st.isSymbolicLink() && !(await lstatOrNull(current))) missing = true; // dangling link inside the root
  }
  let host = path.join(current, leaf);
  let st = missing ? null : await lstatOrNull(host);
  if (st?.isSymbolicLink() && opts.followLeaf) {
    let target: string;
    try {
      target = await fsp.realpath(host);
    } catch {
      // Dangling link: where it would point decides, so a later create cannot land outside.
      const link = await fsp.readlink(host);
      target = path.resolve(path.dirname(host), link);
      if (!isInside(root, target)) throw escapeError(field);
      return { virtual, host: target, root, exists: false };
    }
    if (!isInside(root, target)) throw escapeError(field);
    host = target;
    st = await lstatOrNull(host);
  }
  if (!isInside(root, host)) throw escapeError(field);
  return { virtual, host, root, exists: st !== null };
}

/** The client-visible path of a host path inside the root. */
export function virtualOf(root: string, hostPath: string): string {
  const rel = path.relative(root, hostPath).split(path.sep).join('/');
  return rel === '' ? '/' : `/${rel}`;
}

/**
 * Opens a resolved path with O_NOFOLLOW and verifies, through the descriptor itself, that what
 * was opened lies inside the root (Linux: /proc/self/fd). Returns the open file handle. Callers
 * never pass O_TRUNC: they truncate through the handle after this check, so a raced symlink can
 * never make the engine destroy a file outside the root.
 */
export async function openInsideRoot(p: SessionPath, flags: number, mode?: number): Promise<fsp.FileHandle> {
  const nofollow = fs.constants.O_NOFOLLOW ?? 0;
  const handle = await fsp.open(p.host, flags | nofollow, mode);
  if (process.platform === 'linux') {
    let real: string;
    try {
      real = await fsp.readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      return handle;
    }
    if (!isInside(p.root, real)) {
      await handle.close();
      throw escapeError('path');
    }
  }
  return handle;
}
