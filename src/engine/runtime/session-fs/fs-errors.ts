/**
 * Maps filesystem errors to the wire Error object so no client input ends in a 500: a missing
 * path is 404, a wrong kind of entry 400, an existing one 409, a refused operation 403.
 * Anything else is re-thrown for the error handler (a genuine server fault).
 */
import { ApiError } from '../../http/api-error.js';

export function fsError(err: unknown, virtualPath: string): Error {
  if (err instanceof ApiError) return err;
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return new ApiError(404, 'not_found', `no such file or directory: ${virtualPath}`);
    case 'ENOTDIR':
      return new ApiError(400, 'not_a_directory', `a component of ${virtualPath} is not a directory`);
    case 'EISDIR':
      return new ApiError(400, 'is_a_directory', `${virtualPath} is a directory`);
    case 'EEXIST':
      return ApiError.conflict(`${virtualPath} already exists`, 'already_exists');
    case 'ENOTEMPTY':
      return ApiError.conflict(`${virtualPath} is not empty`, 'directory_not_empty');
    case 'EACCES':
    case 'EPERM':
      return new ApiError(403, 'permission_denied', `permission denied: ${virtualPath}`);
    case 'ELOOP':
      return new ApiError(400, 'symlink_not_followed', `${virtualPath} is a symbolic link`);
    case 'EINVAL':
      return ApiError.badRequest(`invalid operation on ${virtualPath}`);
    case 'ENAMETOOLONG':
      return ApiError.badRequest(`path too long: ${virtualPath}`);
    case 'EXDEV':
      return ApiError.badRequest(`cannot move ${virtualPath} across filesystems`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new ApiError(507, 'insufficient_storage', 'no space left in the session filesystem');
    case 'EBUSY':
      return ApiError.conflict(`${virtualPath} is busy`, 'busy');
    default:
      return err instanceof Error ? err : new Error(String(err));
  }
}

/** Runs `fn`, converting filesystem errors for `virtualPath`. */
export async function mapFsErrors<T>(virtualPath: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw fsError(err, virtualPath);
  }
}
