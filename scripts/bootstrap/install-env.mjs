/**
 * The environment of `npm ci` and `npm rebuild`. Electron's binary is never downloaded (it cannot
 * be, here). C sources compile at `-O1` unless the user set CFLAGS: the SQLite amalgamation that
 * better-sqlite3 builds is the longest step of a fresh clone's first start and of `npm test`'s
 * setup (the SQLite pass waits for it), and on one core of this machine it takes 138 s at the
 * package's own `-O3`, 57 s at `-O2` and 26 s at `-O1`, while SQL runs ~9 % slower at `-O1` than
 * at `-O2` (2026-12-04: `gcc -c sqlite3.c` with the package's defines; a statement benchmark of
 * inserts, lookups by key, paged index scans and updates, 2.37 against 2.60 CPU-s) — a few
 * microseconds on an API call that spends a millisecond in Node. gcc takes the last `-O`, and
 * node-gyp puts CFLAGS after the package's flags; the C++ binding keeps its own level.
 */
export function installEnv(env = process.env) {
  return { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', CFLAGS: env.CFLAGS ?? '-O1' };
}
