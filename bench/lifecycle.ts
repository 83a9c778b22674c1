/**
 * `npm run bench:lifecycle`: the benchmark people compare browser services with — BrowserArena's
 * "hello-browser" (bench/hello-browser.ts) through the official SDK (`@onkernel/sdk`:
 * `browsers.create({ headless: true })` … `browsers.deleteByID`) — beside a local Playwright
 * `chromium.launch` lifecycle measured in the same run as the ratio baseline. Rows:
 *   - local `chromium.launch` (executablePath /usr/bin/chromium), the baseline;
 *   - `POST /browsers` on an engine with standby browsers (when the engine has them);
 *   - `POST /browsers` cold (standby off: every create launches a jailed Chromium);
 *   - pool acquire/release (`browserPools.acquire` … `release`, reuse as the SDK defaults).
 * Each concurrency level (c1, c10 by default) runs warm-ups (sequential, as BrowserArena), then
 * ceil(runs / c) batches of c sessions at once; the rows are interleaved batch by batch so all
 * see the same background load. Prints p50/p95/p99 per stage and of the total, success rate, and
 * each row's total p50 as a ratio to the baseline's.
 *
 * Options (argv `--name=value` or env): --runs / BENCH_RUNS (sessions per level, default 30),
 * --concurrency / BENCH_CONCURRENCY (default "1,10"), --warmup / BENCH_WARMUP (default 10),
 * --standby / BENCH_STANDBY (standby browsers of the standby engine, default 2),
 * --rows / BENCH_ROWS (comma list of local,standby,cold,pool; default all).
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Kernel from '@onkernel/sdk';
import { createEngine } from '../src/engine/index.js';
import type { EngineOptions } from '../src/engine/config.js';
import { helloBrowser, helloLocal, type Provider, type SessionRecord } from './hello-browser.js';
import { p50, p95, p99 } from './stats.js';

function opt(name: string, env: string, dflt: string): string {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : (process.env[env] ?? dflt);
}
const RUNS = Number(opt('runs', 'BENCH_RUNS', '30'));
const LEVELS = opt('concurrency', 'BENCH_CONCURRENCY', '1,10')
  .split(',')
  .map(Number)
  .filter((c) => c > 0);
const WARMUP = Number(opt('warmup', 'BENCH_WARMUP', '10'));
const STANDBY = Number(opt('standby', 'BENCH_STANDBY', '2'));
const ROWS = new Set(opt('rows', 'BENCH_ROWS', 'local,standby,cold,pool').split(','));
const LOCAL_CHROMIUM = '/usr/bin/chromium';
const POOL_SIZE = Math.max(...LEVELS);

interface Engine {
  client: Kernel;
  stop(): Promise<void>;
  /** Whether the engine reports standby browsers in /healthz (absent: the feature is not there). */
  standby: unknown;
}

async function startEngine(extra: Record<string, unknown>): Promise<Engine> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-lc-'));
  // `standby` is the standby work's engine option; an engine without it ignores the key.
  // `egressLoopback`: the page is a local server on 127.0.0.1, which a server engine's pages may not reach by default.
  const options = {
    dataDir,
    port: 0,
    logLevel: 'silent',
    print: () => {},
    maxConcurrentSessions: 4 * POOL_SIZE + 10,
    egressLoopback: true,
    ...extra,
  } as EngineOptions;
  const engine = createEngine(options);
  const { url } = await engine.start();
  const apiKey = (await fsp.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
  const health = (await (await fetch(`${url}/healthz`)).json()) as Record<string, unknown>;
  return {
    client: new Kernel({ apiKey, baseURL: url }),
    standby: health.standby,
    async stop() {
      await engine.stop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}

function sdkProvider(name: string, client: Kernel): Provider {
  return {
    name,
    async create() {
      const b = await client.browsers.create({ headless: true });
      return { id: b.session_id, cdpUrl: b.cdp_ws_url };
    },
    release: (id) => client.browsers.deleteByID(id),
  };
}

async function poolProvider(client: Kernel): Promise<Provider & { dispose(): Promise<void> }> {
  const pool = await client.browserPools.create({ size: POOL_SIZE, headless: true, fill_rate_per_minute: 10_000, timeout_seconds: 3600 } as never);
  const settle = async () => {
    const deadline = Date.now() + 120_000;
    while ((await client.browserPools.retrieve(pool.id)).available_count < POOL_SIZE) {
      if (Date.now() > deadline) throw new Error('pool did not refill within 120 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    name: 'Browserdeck pool acquire/release',
    async create() {
      const b = await client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 60 });
      return { id: b.session_id, cdpUrl: b.cdp_ws_url };
    },
    release: (id) => client.browserPools.release(pool.id, { session_id: id }),
    settle,
    dispose: () => client.browserPools.delete(pool.id, { force: true } as never),
  };
}

type Row = { name: string; one: () => Promise<SessionRecord>; settle?: () => Promise<void>; records: Map<number, SessionRecord[]> };

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '—').padStart(6);

function report(rows: Row[], level: number): void {
  const base = rows.find((r) => r.name.startsWith('local'));
  const baseP50 = base
    ? p50(
        base.records
          .get(level)!
          .filter((r) => r.success)
          .map((r) => r.total),
      )
    : NaN;
  console.log(`\nc${level} — ${RUNS} sessions per row (${Math.ceil(RUNS / level)} batches of ${level}), p50 / p95 / p99 ms`);
  console.log(`${'row'.padEnd(36)} ${['create', 'connect', 'goto', 'release', 'total'].map((s) => s.padStart(20)).join('')}  success  ×local`);
  for (const row of rows) {
    const recs = row.records.get(level)!;
    const ok = recs.filter((r) => r.success);
    const cell = (k: keyof SessionRecord) => {
      const xs = ok.map((r) => r[k] as number);
      return `${ms(p50(xs))}${ms(p95(xs))}${ms(p99(xs))}`.padStart(20);
    };
    const ratio = p50(ok.map((r) => r.total)) / baseP50;
    console.log(
      `${row.name.padEnd(36)} ${(['create', 'connect', 'goto', 'release', 'total'] as const).map(cell).join('')}  ${((100 * ok.length) / recs.length).toFixed(1).padStart(6)}%  ${Number.isFinite(ratio) ? ratio.toFixed(2) : '—'}`,
    );
    for (const e of new Set(recs.filter((r) => !r.success).map((r) => r.error))) console.log(`    failure: ${e}`);
  }
}

async function main(): Promise<void> {
  const page = http.createServer((_q, r) => r.end('<!doctype html><title>hello</title><p>hello browser</p>'));
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
  const engines: Engine[] = [];
  const rows: Row[] = [];
  let pool: Awaited<ReturnType<typeof poolProvider>> | undefined;
  try {
    if (ROWS.has('local')) rows.push({ name: 'local Playwright chromium.launch', one: () => helloLocal(LOCAL_CHROMIUM, url), records: new Map() });
    if (ROWS.has('standby')) {
      const e = await startEngine({ standby: STANDBY });
      engines.push(e);
      const label = e.standby === undefined ? 'POST /browsers (standby: n/a)' : `POST /browsers, standby ${STANDBY}`;
      const p = sdkProvider(label, e.client);
      rows.push({ name: label, one: () => helloBrowser(p, url), records: new Map() });
    }
    if (ROWS.has('cold') || ROWS.has('pool')) {
      const e = await startEngine({ standby: 0 });
      engines.push(e);
      if (ROWS.has('cold')) {
        const p = sdkProvider('POST /browsers cold (standby 0)', e.client);
        rows.push({ name: p.name, one: () => helloBrowser(p, url), records: new Map() });
      }
      if (ROWS.has('pool')) {
        pool = await poolProvider(e.client);
        const p = pool;
        rows.push({ name: p.name, one: () => helloBrowser(p, url), settle: p.settle, records: new Map() });
      }
    }
    for (const row of rows) {
      await row.settle?.();
      for (let i = 0; i < WARMUP; i++) await row.one();
    }
    for (const level of LEVELS) {
      for (const row of rows) row.records.set(level, []);
      for (let b = 0; b < Math.ceil(RUNS / level); b++) {
        for (const row of rows) {
          await row.settle?.();
          // The host's standby refill (and the pool's) runs between batches as it would between users.
          const batch = await Promise.all(Array.from({ length: level }, () => row.one()));
          row.records.get(level)!.push(...batch);
        }
      }
    }
    console.log(
      `\nbench:lifecycle — BrowserArena hello-browser method, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(`warm-ups ${WARMUP} per row; page ${url} (domcontentloaded); baseline executablePath ${LOCAL_CHROMIUM}`);
    for (const level of LEVELS) report(rows, level);
  } finally {
    await pool?.dispose().catch(() => {});
    for (const e of engines) await e.stop();
    page.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
