/**
 * What a client may write as a session path, before anything touches the disk: absolute inside
 * the session (`/` = the session root), no `..` segments, NUL bytes or drive letters. Where the
 * path then leads is decided by the handle walk of rooted-fs.ts.
 */
import path from 'node:path';
import { DomainError } from '../../../shared/errors/domain-error.js';

/** Syntax checks only; returns the normalized client path (`/` for the root). */
export function normalizeClientPath(p: unknown, field = 'path'): string {
  if (typeof p !== 'string' || p.length === 0) throw DomainError.invalidField(field, 'is required');
  if (p.includes('\0')) throw DomainError.invalidField(field, 'must not contain NUL bytes');
  if (/^[a-zA-Z]:/.test(p) || p.startsWith('\\\\'))
    throw DomainError.invalidField(field, 'must be an absolute POSIX path inside the session (drive letters are not paths here)');
  if (!p.startsWith('/')) throw DomainError.invalidField(field, 'must be an absolute path starting with /');
  if (p.length > 4096) throw DomainError.invalidField(field, 'is too long');
  const segments = p.split('/');
  if (segments.includes('..')) throw DomainError.invalidField(field, "must not contain '..' segments");
  // On Windows hosts a backslash would be a separator and could smuggle `..` past the check above.
  if (process.platform === 'win32' && /[\\:]/.test(p)) throw DomainError.invalidField(field, 'must not contain backslashes or colons');
  const normalized = path.posix.normalize(p).replace(/\/+$/, '');
  return normalized === '' ? '/' : normalized;
}
