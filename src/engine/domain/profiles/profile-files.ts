/**
 * Which parts of a Chromium user-data-dir make up a saved profile: the state a user means by
 * "logged in" (cookies, local storage, IndexedDB, saved logins/autofill, preferences) and
 * nothing that would make two sessions share caches, history or crash state. Paths are
 * relative to the user-data-dir and use `/` on every OS.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

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
 * outside it, and following it would copy another file into the profile.
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
    await fs.copyFile(src, dst);
    return 1;
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

/** Copies the profile parts of a user-data-dir into `dst`; returns how many files were copied. */
export async function copyProfileParts(userDataDir: string, dst: string): Promise<number> {
  let copied = 0;
  for (const part of PROFILE_PARTS) copied += await copyTree(path.join(userDataDir, ...part.split('/')), path.join(dst, ...part.split('/')));
  return copied;
}
