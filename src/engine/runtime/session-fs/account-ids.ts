/**
 * Resolves `owner`/`group` of set_file_permissions to numeric ids: digits are ids, names are
 * looked up in the host's /etc/passwd and /etc/group (the same databases sandboxed session
 * processes see). An unknown name is a 400, never a silent no-op.
 */
import fsp from 'node:fs/promises';
import { DomainError } from '../../../shared/errors/domain-error.js';

export async function lookupId(kind: 'user' | 'group', name: string): Promise<number> {
  if (/^\d+$/.test(name)) {
    const n = Number(name);
    if (n > 0xfffffffe) throw DomainError.invalidField(kind === 'user' ? 'owner' : 'group', 'is out of range');
    return n;
  }
  const file = kind === 'user' ? '/etc/passwd' : '/etc/group';
  const text = await fsp.readFile(file, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const parts = line.split(':');
    if (parts[0] === name && parts[2] !== undefined && /^\d+$/.test(parts[2])) return Number(parts[2]);
  }
  throw DomainError.invalidField(kind === 'user' ? 'owner' : 'group', `unknown ${kind} '${name}'`);
}
