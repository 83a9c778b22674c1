/**
 * Which parts of a Chromium user-data-dir make up a saved profile: the state a user means by
 * "logged in" (cookies, local storage, IndexedDB, saved logins/autofill, preferences) and
 * nothing that would make two sessions share caches, history or crash state. Paths are
 * relative to the user-data-dir and use `/` on every OS.
 */
import { constants as fsConstants, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export const PROFILE_PARTS: readonly string[] = [
  // Holds the cookie-encryption key on Windows and macOS; harmless on Linux (--password-store=basic).
  'Local State',
  'Default/Preferences',
  // Cookies moved under Network/ in newer Chrome builds; Debian's Chromium still writes Default/Cookies.
  'Default/Cookies',
  'Default/Cookies-journal',
  'Default/Network',
  'Default/Local Storage',
  'Default/IndexedDB',
  // Storage buckets (non-default IndexedDB buckets, OPFS) in recent Chromium.
  'Default/WebStorage',
  'Default/Login Data',
  'Default/Login Data-journal',
  'Default/Web Data',
  'Default/Web Data-journal',
];

/**
 * Copies regular files and directories from `src` to `dst` (created as needed). Symlinks and
 * special files are skipped: a session could plant a link in its user-data-dir pointing
 * outside it, and following it would copy another file into the profile. A file is opened
 * with O_NOFOLLOW, so one swapped for a link after the lstat is not followed either.
 */
export async function copyTree(src: string, dst: string): Promise<number> {
  let st;
  try {
    st = await fs.lstat(src);
  } catch {
    return 0;
  }
  if (st.isFile()) {
    await fs.mkdir(path.dirname(dst), { recursive: true });
    return copyRegularFile(src, dst);
  }
  if (!st.isDirectory()) return 0;
  await fs.mkdir(dst, { recursive: true });
  let copied = 0;
  for (const name of await fs.readdir(src)) {
    // LevelDB's LOCK is a per-process lock file; a copied one is just noise.
    if (name === 'LOCK') continue;
    copied += await copyTree(path.join(src, name), path.join(dst, name));
  }
  return copied;
}

async function copyRegularFile(src: string, dst: string): Promise<number> {
  let from;
  try {
    from = await fs.open(src, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch {
    return 0; // gone, or a link now
  }
  try {
    if (!(await from.stat()).isFile()) return 0;
    await pipeline(from.createReadStream({ autoClose: false }), createWriteStream(dst, { mode: 0o600 }));
    return 1;
  } finally {
    await from.close();
  }
}

/**
 * Whether every directory on the way from `userDataDir` to `part` is a real directory: lstat of
 * the part itself would follow a planted `Default -> /elsewhere` on the way.
 */
async function realDirsTo(userDataDir: string, segments: string[]): Promise<boolean> {
  let dir = userDataDir;
  for (const name of segments.slice(0, -1)) {
    dir = path.join(dir, name);
    const st = await fs.lstat(dir).catch(() => null);
    if (!st?.isDirectory()) return false;
  }
  return true;
}

/** Copies the profile parts of a user-data-dir into `dst`; returns how many files were copied. */
export async function copyProfileParts(userDataDir: string, dst: string): Promise<number> {
  let copied = 0;
  for (const part of PROFILE_PARTS) {
    const segments = part.split('/');
    if (await realDirsTo(userDataDir, segments)) copied += await copyTree(path.join(userDataDir, ...segments), path.join(dst, ...segments));
  }
  return copied;
}
