/**
 * What better-sqlite3's compile level costs the engine's SQL: the same statements (inserts in a
 * transaction, lookups by key, paged index scans, updates — the engine's shapes) on the installed
 * build and on one built at another level, alternating, CPU-seconds of this process each.
 * scripts/bootstrap/install-env.mjs chose `-O1` from it (2026-12-04: 2.60 against 2.37 CPU-s at `-O2`).
 *
 *   cp -a node_modules/better-sqlite3 /tmp/bsq && cd /tmp/bsq && rm -rf build &&
 *     CFLAGS=-O2 node /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js rebuild --release --nodedir=/usr
 *   npx tsx bench/sqlite-build.ts /tmp/bsq/build/Release/better_sqlite3.node [--runs=3]
 */
import Database from 'better-sqlite3';

const other = process.argv[2];
const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);

/** CPU-seconds the statements take on the build at `nativeBinding` (the installed one when undefined). */
function statements(nativeBinding?: string): number {
  const db = new Database(':memory:', nativeBinding ? { nativeBinding } : {});
  db.exec('create table s (id text primary key, org text, created_at integer, body text)');
  db.exec('create index s_org on s(org, created_at)');
  const t0 = process.cpuUsage();
  const insert = db.prepare('insert into s values (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < 50_000; i++) insert.run(`id${i}`, `org${i % 10}`, i, JSON.stringify({ i, name: `session ${i}`, tags: ['a', 'b'] }));
  })();
  const byId = db.prepare('select * from s where id = ?');
  for (let i = 0; i < 100_000; i++) byId.get(`id${(i * 7) % 50_000}`);
  const page = db.prepare('select * from s where org = ? and created_at > ? order by created_at limit 20');
  for (let i = 0; i < 20_000; i++) page.all(`org${i % 10}`, i);
  const update = db.prepare('update s set body = ? where id = ?');
  for (let i = 0; i < 50_000; i++) update.run('{}', `id${i}`);
  const used = process.cpuUsage(t0);
  db.close();
  return (used.user + used.system) / 1e6;
}

if (!other) {
  console.error('usage: npx tsx bench/sqlite-build.ts <better_sqlite3.node of another build> [--runs=N]');
  process.exit(2);
}
for (let r = 0; r < RUNS; r++) {
  const installed = statements();
  const theirs = statements(other);
  console.log(`run ${r + 1}: installed ${installed.toFixed(2)} CPU-s, ${other} ${theirs.toFixed(2)} CPU-s (×${(theirs / installed).toFixed(2)})`);
}
