/**
 * The user agent a stealth session presents: a regular Chrome's of the executable's major
 * version (`--version`, asked once per executable and cached).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { regularUserAgent } from '../../runtime/chromium/chromium-flags.js';

const majorCache = new Map<string, Promise<string | undefined>>();

/** The Chromium major version of an executable (`--version`), cached per path. */
export function chromiumMajor(executable: string): Promise<string | undefined> {
  let p = majorCache.get(executable);
  if (!p) {
    p = promisify(execFile)(executable, ['--version'], { timeout: 10_000 })
      .then(({ stdout }) => /(\d+)\.\d+\.\d+/.exec(stdout)?.[1])
      .catch(() => undefined);
    majorCache.set(executable, p);
  }
  return p;
}

export async function stealthUserAgent(executable: string): Promise<string | undefined> {
  const major = await chromiumMajor(executable);
  return major ? regularUserAgent(major) : undefined;
}
