/**
 * FileInfo as the wire shows it: `{name, path, is_dir, mode, mod_time, size_bytes}`, with `mode`
 * rendered like Go's `os.FileMode.String()` (`-rw-r--r--`, `drwxr-xr-x`, `Lrwxrwxrwx`) because
 * that is what clients of the hosted service already parse.
 */
import type { Stats } from 'node:fs';
import path from 'node:path';

export interface FileInfo {
  name: string;
  path: string;
  is_dir: boolean;
  mode: string;
  mod_time: string;
  size_bytes: number;
}

export function modeString(st: Stats): string {
  let kind = '';
  if (st.isDirectory()) kind += 'd';
  else if (st.isSymbolicLink()) kind += 'L';
  else if (st.isFIFO()) kind += 'p';
  else if (st.isSocket()) kind += 'S';
  else if (st.isBlockDevice()) kind += 'D';
  else if (st.isCharacterDevice()) kind += 'Dc';
  if (st.mode & 0o4000) kind += 'u';
  if (st.mode & 0o2000) kind += 'g';
  if (st.mode & 0o1000) kind += 't';
  const rwx = 'rwxrwxrwx';
  let perms = '';
  for (let i = 0; i < 9; i++) perms += st.mode & (1 << (8 - i)) ? rwx[i] : '-';
  return (kind || '-') + perms;
}

export function fileInfoOf(virtualPath: string, st: Stats): FileInfo {
  return {
    name: virtualPath === '/' ? '/' : path.posix.basename(virtualPath),
    path: virtualPath,
    is_dir: st.isDirectory(),
    mode: modeString(st),
    mod_time: st.mtime.toISOString(),
    size_bytes: st.isDirectory() ? 0 : st.size,
  };
}

/** Parses an octal permission string (`"644"`, `"0755"`, `"1777"`); undefined when invalid. */
export function parseOctalMode(mode: string | undefined, fallback: number): number | undefined {
  if (mode === undefined || mode === '') return fallback;
  if (!/^0?[0-7]{3,4}$/.test(mode)) return undefined;
  const n = Number.parseInt(mode, 8);
  return n <= 0o7777 ? n : undefined;
}
