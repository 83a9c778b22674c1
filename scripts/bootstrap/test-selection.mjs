/**
 * Which test files go where, from the tags in their header comments (the first 4 KB), not from
 * their folders. Read by `npm test` (test-run.mjs) and by vitest.config.ts, which builds its
 * projects from them.
 *
 * - `@database <why>`, or a name ending in `.pg.test.ts`: the file also runs on PostgreSQL (the
 *   `integration-pg` project). Tag a test when its outcome depends on the database: queries,
 *   migrations, transactions, pagination, concurrency accounting, what PostgreSQL refuses that
 *   SQLite takes (the fuzzers' NUL bytes). Everything else runs once, on SQLite.
 * - `@own-process <why>`: the file needs a process of its own (it tests what a once-per-process
 *   probe or a module's load sees); every other integration file shares its worker's module cache.
 */
import fs from 'node:fs';
import path from 'node:path';

const PG_FILE_SUFFIX = '.pg.test.ts';
const tagLine = (tag) => new RegExp(`^\\s*(?:\\*|//)\\s*@${tag}\\b`, 'm');
const DATABASE_TAG = tagLine('database');
const OWN_PROCESS_TAG = tagLine('own-process');

function headerHas(root, file, re) {
  const fd = fs.openSync(path.join(root, file), 'r');
  try {
    const head = Buffer.alloc(4096);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return re.test(head.subarray(0, n).toString('utf8'));
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether the test file at `file` (relative to `root`) is tagged for the PostgreSQL pass. */
export function isDatabaseTest(root, file) {
  return file.endsWith(PG_FILE_SUFFIX) || headerHas(root, file, DATABASE_TAG);
}

/** Whether the test file at `file` (relative to `root`) is tagged `@own-process`. */
export function isOwnProcessTest(root, file) {
  return headerHas(root, file, OWN_PROCESS_TAG);
}

/** The `*.test.ts(x)` files under `dir` (relative to `root`, `/`-separated), node_modules left out. */
export function testFiles(root, dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(root, rel);
    return /\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** The files tagged for PostgreSQL, narrowed by the user's vitest filters when there are any. */
export function pgTestFiles(root, filters = []) {
  const chosen = [...testFiles(root, 'test'), ...testFiles(root, 'src')].filter((f) => isDatabaseTest(root, f));
  return filters.length ? chosen.filter((f) => filters.some((x) => f.includes(x))) : chosen;
}
