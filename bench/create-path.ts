/**
 * Where `POST /browsers` with a standby browser and the CDP proxy's connect spend their work
 * (issue 14 item 2: one transaction, no sync fs or exec on the hot path, connect ≤ 5 ms over a
 * direct one). Starts an engine (SQLite, standby browsers, idle freezing as configured by
 * default), then per run, once a standby browser is ready (untimed): `POST /browsers
 * {headless: true}` → a CDP client through the engine's proxy (`cdp_ws_url`: WebSocket open +
 * `Browser.getVersion`) and, in alternating order, the same straight to the browser's own
 * DevTools socket (the engine's internal address) → `DELETE`. For each timed step it counts, in
 * the engine's process: SQL statements (better-sqlite3 executions, by text), synchronous fs calls
 * (by function and the engine frame that made them) and processes spawned; a V8 CPU profile is
 * taken over the whole run and only the samples inside the timed steps are summed (self time by
 * function, and inclusive time of engine functions). Wall times are printed too (p50 per step;
 * proxied vs direct connect interleaved in the same run).
 *
 *   npx tsx bench/create-path.ts [--runs=50] [--standby=1] [--idle=ms] [--profile=/tmp/create.cpuprofile]
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import SQLite from 'better-sqlite3';
import { WebSocket } from 'ws';
import { p50 } from './stats.js';

function opt(name: string, dflt: string): string {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : dflt;
}
const RUNS = Number(opt('runs', '50'));
const STANDBY = Number(opt('standby', '1'));
const PROFILE = opt('profile', '');
/** Idle time before each create (untimed): over the engine's freeze delay, the claimed standby browser is frozen, as it is for a user who comes later. */
const IDLE_MS = Number(opt('idle', '0'));
const STEPS = ['create', 'connect (proxy)', 'connect (direct)', 'delete'] as const;
type Step = (typeof STEPS)[number];

/** The step being timed (counters record only then), and what each step did over all runs. */
let current: Step | undefined;
const counts = new Map<Step, { sql: Map<string, number>; syncFs: Map<string, number>; spawns: Map<string, number> }>(
  STEPS.map((s) => [s, { sql: new Map(), syncFs: new Map(), spawns: new Map() }]),
);
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** The first frame of the engine's own code in the current stack (who made the call). */
function engineFrame(): string {
  const lines = (new Error().stack ?? '').split('\n').slice(2);
  const frame = lines.find((l) => l.includes('/src/engine/')) ?? lines.find((l) => !l.includes('/bench/')) ?? '?';
  return frame
    .trim()
    .replace(/^at /, '')
    .replace(/\(?file:\/\/.*\/src\//, '(src/')
    .replace(/\(?\/.*\/src\//, '(src/');
}

// Counters, installed before the engine loads. Synchronous fs: every *Sync function of node:fs.
for (const key of Object.keys(fs) as Array<keyof typeof fs>) {
  const fn = fs[key];
  if (!String(key).endsWith('Sync') || typeof fn !== 'function') continue;
  (fs as unknown as Record<string, unknown>)[key] = function (this: unknown, ...args: unknown[]) {
    if (current) bump(counts.get(current)!.syncFs, `${String(key)} ← ${engineFrame()}`);
    return (fn as (...a: unknown[]) => unknown).apply(this, args);
  };
}
// Every process the engine starts goes through ChildProcess.prototype.spawn.
const cpProto = ChildProcess.prototype as unknown as { spawn: (o: { file: string; args: string[] }) => unknown };
const realSpawn = cpProto.spawn;
cpProto.spawn = function (this: unknown, o: { file: string; args: string[] }) {
  if (current) bump(counts.get(current)!.spawns, `${o.file} ${o.args.slice(1, 3).join(' ')} ← ${engineFrame()}`);
  return realSpawn.call(this, o);
};
syncBuiltinESMExports();
// SQL: every statement execution of better-sqlite3 (the engine's SQLite driver), by its text.
const probe = new SQLite(':memory:');
const stmtProto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
probe.close();
for (const m of ['run', 'get', 'all', 'iterate']) {
  const real = stmtProto[m];
  stmtProto[m] = function (this: { source: string }, ...args: unknown[]) {
    if (current) bump(counts.get(current)!.sql, this.source.replace(/\s+/g, ' ').slice(0, 140));
    return real.apply(this, args);
  };
}

const { createEngine } = await import('../src/engine/index.js');

/** Opens a CDP WebSocket and waits for one `Browser.getVersion` answer; returns the milliseconds. */
async function cdpRoundTrip(url: string): Promise<number> {
  const t0 = performance.now();
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' })));
    ws.once('message', () => resolve());
    ws.once('error', reject);
    ws.once('close', () => reject(new Error('closed before the answer')));
  });
  const ms = performance.now() - t0;
  ws.removeAllListeners('close');
  ws.close();
  return ms;
}

/** Profile sample windows (µs on the V8 profiler's clock, CLOCK_MONOTONIC like hrtime) per step. */
const windows: Array<{ step: Step; from: number; to: number }> = [];
const wall = new Map<Step, number[]>(STEPS.map((s) => [s, []]));
async function timed<T>(step: Step, fn: () => Promise<T>): Promise<T> {
  current = step;
  const from = Number(process.hrtime.bigint() / 1000n);
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    wall.get(step)!.push(performance.now() - t0);
    windows.push({ step, from, to: Number(process.hrtime.bigint() / 1000n) });
    current = undefined;
  }
}

const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-cp-'));
const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {}, standby: STANDBY, maxConcurrentSessions: 100 });
const { url } = await engine.start();
const auth = { authorization: `Bearer ${engine.adminApiKey!}`, 'content-type': 'application/json' };
const sessions = engine.services.sessions;
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');

let claimed = 0;
for (let i = 0; i < RUNS; i++) {
  // Untimed: a standby browser is ready (the refill of the previous run has finished).
  const until = Date.now() + 120_000;
  while (sessions.standby.status().ready < 1 || sessions.standby.status().launching) {
    if (Date.now() > until) throw new Error('no standby browser became ready within 120 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  if (IDLE_MS) await new Promise((r) => setTimeout(r, IDLE_MS));
  const standbyIds = new Set(sessions.standby.readyIds());
  const created = await timed('create', async () => {
    const r = await fetch(`${url}/browsers`, { method: 'POST', headers: auth, body: JSON.stringify({ headless: true }) });
    if (r.status !== 200) throw new Error(`POST /browsers: ${r.status} ${await r.text()}`);
    return (await r.json()) as { session_id: string; cdp_ws_url: string };
  });
  if (standbyIds.has(created.session_id)) claimed++;
  const direct = sessions.get(created.session_id)!.browserCdpUrl();
  // Alternate which connect goes first, so neither always meets a browser the other just woke.
  const order: Array<[Step, string]> = [
    ['connect (proxy)', created.cdp_ws_url],
    ['connect (direct)', direct],
  ];
  if (i % 2) order.reverse();
  for (const [step, to] of order) await timed(step, () => cdpRoundTrip(to));
  await timed('delete', async () => {
    const r = await fetch(`${url}/browsers/${created.session_id}`, { method: 'DELETE', headers: auth });
    if (r.status !== 204) throw new Error(`DELETE: ${r.status}`);
  });
}

const { profile } = await session.post('Profiler.stop');
session.disconnect();
if (PROFILE) await fsp.writeFile(PROFILE, JSON.stringify(profile));
await engine.stop();
await fsp.rm(dataDir, { recursive: true, force: true });

console.log(`${RUNS} runs, ${claimed} creates served by a standby browser (standby ${STANDBY})\n`);
console.log('wall p50 ms (machine load included; compare the two connects, measured interleaved):');
for (const s of STEPS) console.log(`  ${s.padEnd(18)} ${p50(wall.get(s)!).toFixed(1).padStart(7)}`);
const perRun = (n: number) => (n / RUNS).toFixed(n % RUNS ? 2 : 0);
for (const s of STEPS) {
  const c = counts.get(s)!;
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${s}: per run ${perRun(total(c.sql))} SQL statements, ${perRun(total(c.syncFs))} sync fs calls, ${perRun(total(c.spawns))} processes`);
  for (const [what, m] of [
    ['sql', c.sql],
    ['sync fs', c.syncFs],
    ['spawn', c.spawns],
  ] as const)
    for (const [k, n] of [...m].sort((a, b) => b[1] - a[1])) console.log(`  ${what.padEnd(7)} ${perRun(n).padStart(5)}×  ${k}`);
}

// CPU: the profile's samples that fall inside each step's windows.
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const nodes = new Map<number, ProfileNode>((profile.nodes as ProfileNode[]).map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of nodes.values()) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
let t = profile.startTime;
const self = new Map<Step, Map<string, number>>(STEPS.map((s) => [s, new Map()]));
const inclusive = new Map<Step, Map<string, number>>(STEPS.map((s) => [s, new Map()]));
const cpuUs = new Map<Step, number>(STEPS.map((s) => [s, 0]));
for (let i = 0; i < profile.samples!.length; i++) {
  const dt = profile.timeDeltas![i];
  t += dt;
  const w = windows.find((x) => t >= x.from && t <= x.to);
  const n = nodes.get(profile.samples![i])!;
  if (!w || n.callFrame.functionName === '(idle)') continue;
  cpuUs.set(w.step, cpuUs.get(w.step)! + dt);
  const s = self.get(w.step)!;
  s.set(label(n), (s.get(label(n)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    const f = nodes.get(id)!;
    if (!f.callFrame.url.includes('/src/engine/')) continue;
    const l = label(f);
    if (seen.has(l)) continue;
    seen.add(l);
    const inc = inclusive.get(w.step)!;
    inc.set(l, (inc.get(l) ?? 0) + dt);
  }
}
const msPerRun = (us: number) => (us / 1000 / RUNS).toFixed(2).padStart(7);
for (const s of STEPS) {
  console.log(`\n${s}: CPU of the process (engine + this in-process client; profile samples) ${msPerRun(cpuUs.get(s)!)} ms per run`);
  console.log('  self, top 12:');
  for (const [k, us] of [...self.get(s)!].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${msPerRun(us)}  ${k}`);
  console.log('  inclusive, engine functions, top 15:');
  for (const [k, us] of [...inclusive.get(s)!].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${msPerRun(us)}  ${k}`);
}
