/**
 * The environment of `npm ci` and `npm rebuild`. Electron's binary is never downloaded (it cannot
 * be, here). C sources compile at `-O2` unless the user set CFLAGS: better-sqlite3 builds the SQLite
 * amalgamation at `-O3`, 138 CPU-s on one core of this machine, against 67 s at `-O2` (SQLite's
 * and Debian's own level) — the longest step of a fresh clone's first start and of `npm test`'s
 * setup. gcc takes the last `-O`, and node-gyp puts CFLAGS after the package's flags.
 */
export function installEnv(env = process.env) {
  return { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', CFLAGS: env.CFLAGS ?? '-O2' };
}
