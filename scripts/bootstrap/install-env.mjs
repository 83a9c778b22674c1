/**
 * The environment of `npm ci` and `npm rebuild`. Electron's binary is never downloaded (it cannot
 * be, here). C sources compile at `-O1` with the warnings off unless the user set CFLAGS: the
 * SQLite amalgamation that better-sqlite3 builds is the longest step of a fresh clone's first start
 * and of `npm test`'s setup (the SQLite pass waits for it).
 * - `-O1`: on one core of this machine the amalgamation takes 138 s at the package's own `-O3`,
 *   52 s at `-O2` and 27 s at `-O1`, while SQL runs ~9 % slower at `-O1` than at `-O2`
 *   (2026-12-04; a statement benchmark of inserts, lookups by key, paged index scans and updates,
 *   2.37 against 2.60 CPU-s: `npx tsx bench/sqlite-build.ts`) — a few microseconds on an API call
 *   that spends a millisecond in Node.
 * - `-Wno-all -Wno-extra`: the package asks for `-Wall -Wextra` and then `-w`, so nothing is ever
 *   printed, but gcc still runs the analyses: 48 s against 27 s at `-O1`, 29 s against 10 s at
 *   `-O0` (the exact compile command of `make V=1`, timed alone).
 * gcc takes the last `-O` and `-W` flags, and node-gyp puts CFLAGS after the package's flags; the
 * C++ binding (5 s) keeps its own.
 */
export const DEFAULT_CFLAGS = '-O1 -Wno-all -Wno-extra';

export function installEnv(env = process.env) {
  return { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', CFLAGS: env.CFLAGS ?? DEFAULT_CFLAGS };
}
