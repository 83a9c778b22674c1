/**
 * Finds the Chromium-family browser to run sessions with: the configured path (`chromiumPath`
 * / `--chromium`), then `BROWSERDECK_CHROMIUM`, then the well-known install locations of
 * Chromium, Chrome and Edge on Linux, macOS and Windows. `exists` is injected so the search
 * order is unit-testable on any OS.
 */
import path from 'node:path';
import { isExecutable } from '../find-executable.js';

export interface FindChromiumOptions {
  configured?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  exists?: (p: string) => boolean;
}

/** Candidate paths in search order for one platform (configured path and env come first). */
export function chromiumCandidates(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  if (platform === 'darwin') {
    const apps = ['Chromium.app/Contents/MacOS/Chromium', 'Google Chrome.app/Contents/MacOS/Google Chrome', 'Microsoft Edge.app/Contents/MacOS/Microsoft Edge'];
    const roots = ['/Applications', path.join(env.HOME ?? '', 'Applications')];
    return roots.flatMap((r) => apps.map((a) => path.posix.join(r, a)));
  }
  if (platform === 'win32') {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES ?? 'C:\\Program Files', env['PROGRAMFILES(X86)'] ?? 'C:\\Program Files (x86)'].filter(
      (r): r is string => !!r,
    );
    const rel = ['Chromium\\Application\\chrome.exe', 'Google\\Chrome\\Application\\chrome.exe', 'Microsoft\\Edge\\Application\\msedge.exe'];
    return rel.flatMap((r) => roots.map((root) => path.win32.join(root, r)));
  }
  const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'microsoft-edge-stable'];
  const dirs = ['/usr/bin', '/usr/local/bin', '/snap/bin', '/opt/google/chrome', '/opt/microsoft/msedge'];
  const fromPath = (env.PATH ?? '').split(':').filter(Boolean);
  const out: string[] = [];
  for (const n of names) for (const d of [...dirs, ...fromPath]) out.push(path.posix.join(d, n));
  out.push('/opt/google/chrome/chrome', '/opt/microsoft/msedge/msedge');
  // Debian's /usr/bin/chromium is a shell wrapper around this binary; starting it directly
  // saves the wrapper's work on every launch.
  return [...new Set(['/usr/lib/chromium/chromium', ...out])];
}

/** The browser executable to use, or undefined when none is found. */
export function findChromium(opts: FindChromiumOptions = {}): string | undefined {
  const env = opts.env ?? process.env;
  const exists = opts.exists ?? isExecutable;
  if (opts.configured) return opts.configured;
  if (env.BROWSERDECK_CHROMIUM) return env.BROWSERDECK_CHROMIUM;
  return chromiumCandidates(opts.platform ?? process.platform, env).find((p) => exists(p));
}
