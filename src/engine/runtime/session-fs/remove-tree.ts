/**
 * Removing a session's directory tree when something may still write into it (a browser's
 * storage service finishing, a crashed engine's leftover). `fs.rm`'s own `maxRetries` retries at
 * every level of the tree, so one directory that stays busy cost minutes, not the fraction of a
 * second meant: this tries the whole removal again instead, a bounded number of times.
 */
import fsp from 'node:fs/promises';

/** Removes `dir` (recursively; a missing one is fine); throws the last error after `attempts`. */
export async function removeTree(dir: string, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fsp.rm(dir, { recursive: true, force: true });
      return;
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}
