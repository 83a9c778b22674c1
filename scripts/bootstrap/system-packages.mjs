/**
 * The system programs Browserdeck runs (Chromium, chromedriver, ffmpeg, Xvfb, bubblewrap and
 * socat for the session jail, `ip` for its network namespace as root, xdotool, zstd, and for the
 * test suite the PostgreSQL server). As
 * root on Debian, missing ones are installed from Debian's archive; anywhere else we say what is
 * missing and how to get it, then carry on (features that need a missing program fail with their own error).
 */
import fs from 'node:fs';
import path from 'node:path';
import { run, say } from './run.mjs';

/** program → Debian package. Checked on PATH (plus sbin dirs, where Debian puts some). */
const PROGRAMS = [
  { names: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'], pkg: 'chromium' },
  { names: ['chromedriver'], pkg: 'chromium-driver' },
  { names: ['ffmpeg'], pkg: 'ffmpeg' },
  { names: ['Xvfb'], pkg: 'xvfb' },
  { names: ['bwrap'], pkg: 'bubblewrap' },
  { names: ['socat'], pkg: 'socat' },
  { names: ['ip'], pkg: 'iproute2' },
  { names: ['xdotool'], pkg: 'xdotool' },
  { names: ['zstd'], pkg: 'zstd' },
];

export function onPath(name) {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).concat(['/usr/sbin', '/sbin']);
  return dirs.some((d) => d && fs.existsSync(path.join(d, name)));
}

/** Directory holding Debian's PostgreSQL server binaries (newest major), or null. */
export function postgresBinDir() {
  const base = '/usr/lib/postgresql';
  if (fs.existsSync(base)) {
    const majors = fs
      .readdirSync(base)
      .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors.length) return path.join(base, majors[0], 'bin');
  }
  // Elsewhere (Homebrew, manual builds) the server binaries are usually on PATH.
  const dirs = (process.env.PATH ?? '').split(path.delimiter);
  const dir = dirs.find((d) => d && fs.existsSync(path.join(d, 'postgres')) && fs.existsSync(path.join(d, 'initdb')));
  return dir ?? null;
}

function missingPackages(needPostgres) {
  const missing = PROGRAMS.filter((p) => !p.names.some(onPath)).map((p) => p.pkg);
  if (needPostgres && !postgresBinDir()) missing.push('postgresql');
  return missing;
}

/**
 * `apt-get update`, run at most once per bootstrap (the system packages and the container tools
 * both install from the lists it fetches). `stdio` is where apt's output goes.
 */
let aptUpdated;
export function aptGetUpdate(stdio = 'inherit') {
  aptUpdated ??= run('apt-get', ['update'], { env: aptEnv(), stdio });
  return aptUpdated;
}

/** apt-get never asks (nobody answers it in CI). */
export function aptEnv() {
  return { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
}

/** `stdio`: where apt's output goes ('inherit', or `['ignore', fd, fd]` for a log file). */
export async function ensureSystemPackages({ needPostgres, stdio = 'inherit' }) {
  const missing = missingPackages(needPostgres);
  if (missing.length === 0) return;
  const debian = fs.existsSync('/etc/debian_version');
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (debian && root) {
    say(`installing missing system packages: ${missing.join(' ')}`);
    let code = await aptGetUpdate(stdio);
    if (code === 0) code = await run('apt-get', ['install', '-y', ...missing], { env: aptEnv(), stdio });
    if (code !== 0) say(`apt-get failed (exit ${code}); continuing without: ${missingPackages(needPostgres).join(' ')}`);
    return;
  }
  say(`MISSING system programs for: ${missing.join(' ')}`);
  if (debian) say(`  install them with: sudo apt-get install -y ${missing.join(' ')}`);
  else if (process.platform === 'darwin') say('  install them with Homebrew (e.g. brew install ffmpeg zstd postgresql; Chrome/Chromium from its installer)');
  else say('  install them with your system package manager; continuing without them');
}
