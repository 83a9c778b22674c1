/**
 * Maps filesystem errors to the wire Error object so no client input ends in a 500: a missing
 * path is 404, a wrong kind of entry 400, an existing one 409, a refused operation 403.
 * Anything else is re-thrown for the error handler (a genuine server fault).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';

export function fsError(err: unknown, virtualPath: string): Error {
  if (err instanceof DomainError) return err;
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return new DomainError(404, 'not_found', `no such file or directory: ${virtualPath}`);
    case 'ENOTDIR':
      return new DomainError(400, 'not_a_directory', `a component of ${virtualPath} is not a directory`);
    case 'EISDIR':
      return new DomainError(400, 'is_a_directory', `${virtualPath} is a directory`);
    case 'EEXIST':
      return DomainError.conflict(`${virtualPath} already exists`, 'already_exists');
    case 'ENOTEMPTY':
      return DomainError.conflict(`${virtualPath} is not empty`, 'directory_not_empty');
    case 'EACCES':
    case 'EPERM':
      return new DomainError(403, 'permission_denied', `permission denied: ${virtualPath}`);
    case 'ELOOP':
      return new DomainError(400, 'symlink_not_followed', `${virtualPath} is a symbolic link`);
    case 'EINVAL':
      return DomainError.badRequest(`invalid operation on ${virtualPath}`);
    case 'ENAMETOOLONG':
      return DomainError.badRequest(`path too long: ${virtualPath}`);
    case 'EXDEV':
      return DomainError.badRequest(`cannot move ${virtualPath} across filesystems`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new DomainError(507, 'insufficient_storage', 'no space left in the session filesystem');
    case 'EBUSY':
      return DomainError.conflict(`${virtualPath} is busy`, 'busy');
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
