/**
 * `npm run bench:sessions`: what a session costs, beside the floor measured in the same run.
 *  1. raw Chromium launch-to-ready (spawn → `Browser.getVersion` answered), same flags as sessions;
 *  2. cold `POST /browsers` until CDP answers through the session's cdp_ws_url — jailed (the
 *     default: bubblewrap, Chromium's own sandbox on, egress through the engine) and, on a second
 *     engine in the same run, unjailed (`insecureNoJail`), to show what the jail costs;
 *  3. pool acquire (added by the pools work — see the marked spot below);
 *  4. full lifecycle: create → Playwright connectOverCDP → navigate a local page → delete;
 *  5. how many idle headless sessions fit (up to BENCH_IDLE_CAP) and the PSS per session
 *     (/proc/<pid>/smaps_rollup summed over every process of the sessions' process groups).
 * p50/p95 each, with ratios against the raw floor. Targets: cold create (jailed) ≤ 1.25× raw launch;
 * ≥ 100 idle headless sessions.
 *
 * Env: BENCH_ITERATIONS (default 15), BENCH_IDLE_CAP (default 100), BENCH_MIN_FREE_MB (stop
 * filling when MemAvailable drops below, default 2048).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { WebSocket } from 'ws';
import { createEngine } from '../src/engine/index.js';
import { findChromium } from '../src/engine/runtime/chromium/find-chromium.js';
import { processesWithMarker } from '../src/engine/runtime/chromium/process-group.js';
import type { SessionManager } from '../src/engine/domain/sessions/session-manager.js';
import { measurePoolAcquire } from './pools.js';
import { rawChromiumLaunch } from './raw-launch.js';
import { pssOfTrees } from './pss.js';

const ITER = Number(process.env.BENCH_ITERATIONS ?? 15);
const IDLE_CAP = Number(process.env.BENCH_IDLE_CAP ?? 100);
const MIN_FREE_MB = Number(process.env.BENCH_MIN_FREE_MB ?? 2048);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
const fmt = (n: number) => `${n.toFixed(0)} ms`;

function memAvailableMb(): number {
  const m = /MemAvailable:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'));
  return m ? Number(m[1]) / 1024 : Infinity;
}

async function cdpAnswers(url: string): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' })));
    ws.on('message', (d) => {
      if (JSON.parse(d.toString()).id === 1) resolve();
    });
  });
  ws.close();
}

/**
 * Waits until no process carries `marker` (a session id) in its command line: a delete answers at
 * once and tears the jail down in the background, and the next launch measured must not share two
 * cores with that teardown (the raw launch it is compared with has none running beside it).
 */
async function settled(marker: string): Promise<void> {
  for (let i = 0; i < 100 && (await processesWithMarker(marker)).length; i++) await new Promise((r) => setTimeout(r, 50));
}

async function main(): Promise<void> {
  const executable = findChromium();
  if (!executable) throw new Error('no Chromium found');
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-'));
  // Standby off on both engines: a create that claims a standby browser launches nothing, and
  // these rows measure the launch (bench:lifecycle measures the standby path beside it).
  const engine = createEngine({
    dataDir,
    port: 0,
    logLevel: 'silent',
    print: () => {},
    maxConcurrentSessions: IDLE_CAP + 10,
    standby: 0,
    // The page is a local server on 127.0.0.1, which a server engine's jailed pages may not reach by default.
    egressLoopback: true,
  });
  const { url } = await engine.start();
  const adminKey = (await fsp.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
  const api = (p: string, init: RequestInit = {}) =>
    fetch(url + p, { ...init, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const openDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-open-'));
  const unjailed = createEngine({ dataDir: openDir, port: 0, logLevel: 'silent', print: () => {}, insecureNoJail: true, standby: 0 });
  const openUrl = (await unjailed.start()).url;
  const openKey = (await fsp.readFile(path.join(openDir, 'admin-api-key'), 'utf8')).trim();
  const openApi = (p: string, init: RequestInit = {}) =>
    fetch(openUrl + p, { ...init, headers: { authorization: `Bearer ${openKey}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const createOn = async (call: typeof api) => {
    const res = await call('/browsers', { method: 'POST', body: JSON.stringify({ headless: true, timeout_seconds: 3600 }) });
    if (res.status !== 200) throw new Error(`create: ${res.status} ${await res.text()}`);
    return (await res.json()) as { session_id: string; cdp_ws_url: string };
  };
  const page = http.createServer((_q, r) => r.end('<!doctype html><title>bench</title><p>bench page</p>'));
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;

  const create = () => createOn(api);
  const del = (id: string) => api(`/browsers/${id}`, { method: 'DELETE' });

  try {
    // Warm-up: first launches pay for disk cache and the --version probe.
    await del((await create()).session_id);
    await openApi(`/browsers/${(await createOn(openApi)).session_id}`, { method: 'DELETE' });

    const raw: number[] = [];
    const cold: number[] = [];
    const coldOpen: number[] = [];
    for (let i = 0; i < ITER; i++) {
      // Interleaved so both series see the same background load.
      raw.push(await rawChromiumLaunch(dataDir));

      const t1 = performance.now();
      const s = await create();
      await cdpAnswers(s.cdp_ws_url);
      cold.push(performance.now() - t1);
      await del(s.session_id);
      await settled(s.session_id);

      const t2 = performance.now();
      const o = await createOn(openApi);
      await cdpAnswers(o.cdp_ws_url);
      coldOpen.push(performance.now() - t2);
      await openApi(`/browsers/${o.session_id}`, { method: 'DELETE' });
      await settled(o.session_id);
    }

    const lifecycle: number[] = [];
    for (let i = 0; i < ITER; i++) {
      const t0 = performance.now();
      const s = await create();
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      const ctx = browser.contexts()[0];
      const p = ctx.pages()[0] ?? (await ctx.newPage());
      await p.goto(pageUrl);
      await browser.close();
      await del(s.session_id);
      lifecycle.push(performance.now() - t0);
    }

    // Pool acquire against a filled pool (bench/pools.ts).
    const poolAcquire: number[] | undefined = await measurePoolAcquire(api, Math.max(ITER, 30));

    // Idle capacity.
    const idle: string[] = [];
    let stopReason = `reached BENCH_IDLE_CAP=${IDLE_CAP}`;
    for (let i = 0; i < IDLE_CAP; i++) {
      if (memAvailableMb() < MIN_FREE_MB) {
        stopReason = `MemAvailable below ${MIN_FREE_MB} MB`;
        break;
      }
      try {
        idle.push((await create()).session_id);
      } catch (err) {
        stopReason = `create failed: ${(err as Error).message.slice(0, 120)}`;
        break;
      }
    }
    await new Promise((r) => setTimeout(r, 3000)); // let startup work settle before measuring
    const m = engine.services.sessions as SessionManager;
    const pids = new Set(
      m
        .all()
        .map((s) => s.browser?.pid)
        .filter((p): p is number => !!p),
    );
    const pssKb = pssOfTrees(pids).totalKb;

    const floor = pct(raw, 50);
    const row = (name: string, xs: number[] | undefined) =>
      xs
        ? `${name.padEnd(40)} p50 ${fmt(pct(xs, 50)).padStart(8)}  p95 ${fmt(pct(xs, 95)).padStart(8)}  ×floor p50 ${(pct(xs, 50) / floor).toFixed(2)}  p95 ${(pct(xs, 95) / pct(raw, 95)).toFixed(2)}`
        : `${name.padEnd(40)} (not measured yet: pools work)`;
    console.log(`\nbench:sessions — ${ITER} iterations each, ${os.cpus().length} CPUs, Chromium ${executable}`);
    console.log(row('raw Chromium launch → getVersion (floor)', raw));
    console.log(row('cold POST /browsers → CDP answers (jail)', cold));
    console.log(row('cold POST /browsers, unjailed', coldOpen));
    console.log(`the jail's cost: cold create p50 ${(pct(cold, 50) / pct(coldOpen, 50)).toFixed(2)}× the unjailed create in the same run`);
    console.log(row('pool acquire', poolAcquire));
    console.log(row('lifecycle create→connect→navigate→delete', lifecycle));
    console.log(
      `idle headless sessions: ${idle.length} (${stopReason}); PSS total ${(pssKb / 1024).toFixed(0)} MB, per session ${(pssKb / 1024 / Math.max(1, idle.length)).toFixed(0)} MB`,
    );
    if (poolAcquire)
      console.log(
        `pool acquire: p50 ${fmt(pct(poolAcquire, 50))} (target ≤ 30 ms) ${pct(poolAcquire, 50) <= 30 ? 'OK' : 'MISSED'}, p99 ${fmt(pct(poolAcquire, 99))} (target ≤ 105 ms) ${pct(poolAcquire, 99) <= 105 ? 'OK' : 'MISSED'}`,
      );
    console.log(
      `targets: cold create (jailed) p50 ≤ 1.25× floor → ${(pct(cold, 50) / floor).toFixed(2)}× ${pct(cold, 50) <= 1.25 * floor ? 'OK' : 'MISSED'}; ≥ 100 idle sessions → ${idle.length} ${idle.length >= 100 ? 'OK' : 'MISSED'}`,
    );

    for (let i = 0; i < idle.length; i += 10) await Promise.all(idle.slice(i, i + 10).map(del));
  } finally {
    await unjailed.stop();
    await fsp.rm(openDir, { recursive: true, force: true });
    await engine.stop();
    page.close();
    await fsp.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
