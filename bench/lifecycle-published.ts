/**
 * bench:lifecycle's default mode: BrowserArena's published method, the way users run sessions.
 * One engine with default settings (as `npm run serve` starts it), the official SDK, sessions
 * back to back with no pause (c workers, each starting its next session when its last one has
 * been released), warm-ups then n sessions per row, c1 and c10; beside, in the same run, a local
 * Playwright `chromium.launch` (the ratio baseline) and raw Chromium launches back to back at one
 * per core (the machine's launch rate: the most fresh browsers per second a loop can get).
 *
 * Per row: create and lifecycle p50/p99, release p50, success, lifecycle p50 × the local
 * launch's, sessions/s over the row's wall time against the raw launch rate, and for
 * `POST /browsers` the share of creates a standby browser served (ready, or its launch adopted)
 * from /healthz's counters. The pool row (a pool of c on the same engine, created for the row and
 * deleted after) is where release is measured.
 *
 * `--mode=interleaved`: n rounds of a local launch, a standby create and a pool lifecycle in turn
 * (c1), the issue 29 table's first line. Goals printed at the end are issue 29's "done when".
 */
import os from 'node:os';
import { helloBrowser, helloLocal, serveHelloPage, type SessionRecord } from './hello-browser.js';
import { p50, p99 } from './stats.js';
import { rawChromiumLaunch } from './raw-launch.js';
import { ENGINE_MODE, LOCAL_CHROMIUM, poolProvider, sdkProvider, startEngine, type BenchEngine, type StandbyHealth } from './lifecycle-engine.js';

interface RowResult {
  name: string;
  level: number;
  records: SessionRecord[];
  wallMs: number;
  /** Creates a standby browser served (ready or adopted launch), of all creates the standby saw. */
  standby?: { ready: number; adopted: number; cold: number; launches?: number };
}

const CORES = os.availableParallelism();
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '—').padStart(7);

/** `n` runs of `one` by `level` workers back to back; resolves with the records and the wall time. */
async function backToBack<T>(n: number, level: number, one: () => Promise<T>): Promise<{ out: T[]; wallMs: number }> {
  const out: T[] = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(level, n) }, async () => {
      while (started < n) {
        started++;
        out.push(await one());
      }
    }),
  );
  return { out, wallMs: performance.now() - t0 };
}

async function warmUp(n: number, one: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i++) await one();
}

function standbyDelta(a?: StandbyHealth, b?: StandbyHealth): RowResult['standby'] {
  if (!a || !b) return undefined;
  return { ready: b.claimed - a.claimed, adopted: (b.adopted ?? 0) - (a.adopted ?? 0), cold: b.cold - a.cold, launches: b.budget?.launches };
}

function okOf(r: RowResult | undefined): SessionRecord[] {
  return r?.records.filter((x) => x.success) ?? [];
}

function printRows(rows: RowResult[], rawRate: number | undefined, title: string): void {
  const local = rows.find((r) => r.name.startsWith('local'));
  const localLife = p50(okOf(local).map((r) => r.total));
  console.log(`\n${title}`);
  console.log(
    `${'row'.padEnd(34)} ${'create p50/p99'.padStart(15)} ${'lifecycle p50/p99'.padStart(17)} ${'release'.padStart(8)}  success  ×local  sessions/s  standby served`,
  );
  for (const r of rows) {
    const ok = okOf(r);
    const life = ok.map((x) => x.total);
    const perS = (1000 * r.records.length) / r.wallMs;
    const served = r.standby ? r.standby.ready + r.standby.adopted : undefined;
    const all = r.standby ? served! + r.standby.cold : 0;
    const share =
      r.standby && all
        ? `${((100 * served!) / all).toFixed(0)}% (${r.standby.ready} ready, ${r.standby.adopted} adopted, ${r.standby.cold} cold)${r.standby.launches ? `, ${r.standby.launches} launches at once at the end` : ''}`
        : '';
    console.log(
      `${r.name.padEnd(34)} ${ms(p50(ok.map((x) => x.create)))} ${ms(p99(ok.map((x) => x.create)))} ${ms(p50(life))} ${ms(p99(life))}   ${ms(p50(ok.map((x) => x.release)))}  ${((100 * ok.length) / Math.max(1, r.records.length)).toFixed(0).padStart(5)}%  ${(p50(life) / localLife).toFixed(2).padStart(5)}  ${perS.toFixed(2).padStart(10)}  ${share}`,
    );
    for (const e of new Set(r.records.filter((x) => !x.success).map((x) => x.error))) console.log(`    failure: ${e}`);
  }
  if (rawRate !== undefined)
    console.log(`${'raw Chromium launches, c' + CORES}`.padEnd(34) + ` ${rawRate.toFixed(2)} launches/s (the machine's launch rate, same run)`);
}

async function withPage<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const page = await serveHelloPage();
  try {
    return await fn(page.url);
  } finally {
    page.close();
  }
}

function header(mode: string, engine: StandbyHealth | undefined): void {
  console.log(
    `\nbench:lifecycle --mode=${mode} — BrowserArena hello-browser, official SDK, no pauses; ${CORES} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (engine?.budget)
    console.log(
      `engine: ${ENGINE_MODE === 'process' ? 'its own process (as npm run serve)' : 'in this process'}, default settings (standby budget ${engine.budget.count} browsers / ${engine.budget.memory_mb} MB, ${engine.budget.launches ?? 1} launches at once${engine.budget.launches_max ? `, ${engine.budget.launches_min}–${engine.budget.launches_max} as the CPUs allow` : ''}); baseline executablePath ${LOCAL_CHROMIUM}`,
    );
}

/** The default mode: rows one after another, each back to back, at each level. */
export async function runPublished(runs: number, levels: number[], warmup: number): Promise<void> {
  await withPage(async (url) => {
    const engine = await startEngine();
    const results: Array<{ level: number; rows: RowResult[]; rawRate: number }> = [];
    try {
      // Printed as each level ends: a long run on a loaded machine shows what it has so far.
      header('published (default)', await engine.standby());
      for (const level of levels) {
        const rows: RowResult[] = [];
        const local = () => helloLocal(LOCAL_CHROMIUM, url);
        await warmUp(warmup, local);
        const l = await backToBack(runs, level, local);
        rows.push({ name: 'local Playwright chromium.launch', level, records: l.out, wallMs: l.wallMs });

        const raw = await backToBack(Math.max(2 * CORES, Math.min(runs, 20)), CORES, () => rawChromiumLaunch());
        const rawRate = (1000 * raw.out.length) / raw.wallMs;

        const p = sdkProvider('POST /browsers (standby, defaults)', engine.client);
        const one = () => helloBrowser(p, url);
        await warmUp(warmup, one);
        const before = await engine.standby();
        const s = await backToBack(runs, level, one);
        rows.push({ name: p.name, level, records: s.out, wallMs: s.wallMs, standby: standbyDelta(before, await engine.standby()) });

        const pool = await poolProvider(engine.client, level);
        try {
          await pool.settle!();
          const poolOne = () => helloBrowser(pool, url);
          await warmUp(Math.min(warmup, 3), poolOne);
          const r = await backToBack(runs, level, poolOne);
          rows.push({ name: pool.name, level, records: r.out, wallMs: r.wallMs });
        } finally {
          await pool.dispose().catch(() => {});
        }
        results.push({ level, rows, rawRate });
        printRows(rows, rawRate, `c${level} — ${runs} sessions per row back to back (${level} at a time), ${warmup} warm-ups; ms`);
      }
      goals(results);
    } finally {
      await engine.stop();
    }
  });
}

/** Issue 29's "done when" for the back-to-back run, from this run's figures. */
function goals(results: Array<{ level: number; rows: RowResult[]; rawRate: number }>): void {
  const mark = (v: number, ok: boolean, text: string) =>
    console.log(`  ${text}: ${Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 0) : '—'} ${ok ? 'OK' : 'MISSED'}`);
  console.log('\nissue 29 goals, this run (back to back):');
  const c1 = results.find((r) => r.level === 1);
  if (c1) {
    const sb = c1.rows.find((r) => r.name.startsWith('POST'))!;
    const local = c1.rows.find((r) => r.name.startsWith('local'))!;
    const create = p50(okOf(sb).map((r) => r.create));
    mark(create, create <= 250, 'c1 create p50 ≤ 250 ms');
    const ratio = p50(okOf(sb).map((r) => r.total)) / p50(okOf(local).map((r) => r.total));
    mark(ratio, ratio <= 0.6, 'c1 lifecycle p50 ≤ 0.6× the local launch lifecycle');
    const share = (1000 * sb.records.length) / sb.wallMs / c1.rawRate;
    mark(share, share >= 0.8, 'c1 sessions/s ≥ 0.8× the raw launch rate');
  }
  const c10 = results.find((r) => r.level >= 10);
  if (c10) {
    const sb = c10.rows.find((r) => r.name.startsWith('POST'))!;
    const life = okOf(sb).map((r) => r.total);
    mark(p99(life) / p50(life), p99(life) <= 3 * p50(life), `c${c10.level} lifecycle p99 ≤ 3× p50`);
    const success = okOf(sb).length / sb.records.length;
    mark(100 * success, success === 1, `c${c10.level} success 100 %`);
  }
  // Per level: at c1 a release waits on nothing but its answer; at c10 it also waits its turn on an
  // engine event loop that ten launches keep busy. One p50 over both would be neither.
  for (const r of results) {
    const releases = okOf(r.rows.find((x) => x.name.includes('pool'))).map((x) => x.release);
    mark(p50(releases), p50(releases) <= 20, `c${r.level} pool release p50 ≤ 20 ms`);
  }
}

/** `--mode=interleaved`: a local launch, a standby create and a pool lifecycle in turn, n rounds (c1). */
export async function runInterleaved(runs: number, warmup: number): Promise<void> {
  await withPage(async (url) => {
    const engine = await startEngine();
    const pool = await poolProvider(engine.client, 1);
    try {
      const initial = await engine.standby();
      await pool.settle!();
      const p = sdkProvider('POST /browsers (standby, defaults)', engine.client);
      const one = [() => helloLocal(LOCAL_CHROMIUM, url), () => helloBrowser(p, url), () => helloBrowser(pool, url)];
      for (let i = 0; i < warmup; i++) for (const f of one) await f();
      const rows: RowResult[] = ['local Playwright chromium.launch', p.name, pool.name].map((name) => ({ name, level: 1, records: [], wallMs: 0 }));
      const before = await engine.standby();
      for (let i = 0; i < runs; i++)
        for (let k = 0; k < one.length; k++) {
          const t0 = performance.now();
          rows[k].records.push(await one[k]());
          rows[k].wallMs += performance.now() - t0;
        }
      rows[1].standby = standbyDelta(before, await engine.standby());
      header('interleaved', initial);
      printRows(
        rows,
        undefined,
        `c1 — ${runs} rounds of a local launch, a standby create and a pool lifecycle in turn, ${warmup} warm-ups; ms (sessions/s: of the row's own time)`,
      );
      const create = p50(okOf(rows[1]).map((r) => r.create));
      const life = p50(okOf(rows[1]).map((r) => r.total));
      const localLife = p50(okOf(rows[0]).map((r) => r.total));
      console.log('\nissue 29 goals, this run (interleaved):');
      console.log(`  create p50 ≤ 15 ms: ${create.toFixed(1)} ${create <= 15 ? 'OK' : 'MISSED'}`);
      console.log(
        `  lifecycle p50 ≤ 150 ms and below the local launch's (${localLife.toFixed(0)}): ${life.toFixed(0)} ${life <= 150 && life < localLife ? 'OK' : 'MISSED'}`,
      );
    } finally {
      await pool.dispose().catch(() => {});
      await engine.stop();
    }
  });
}

export type { BenchEngine };
