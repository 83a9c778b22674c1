/**
 * `npm run bench:memory`: what an idle headless session costs in memory, as PSS of its whole jail
 * (bwrap, the shell-turned-Chromium, Chromium's zygotes, renderer, GPU and utility processes, the
 * jail helper) — bench/pss.ts — and what that implies for a 24 GiB machine.
 *
 *   sessions mode (default): N sessions through `POST /browsers` on a real engine (standby 0), left
 *     idle, then the PSS of every session's jail together, divided by N, with a breakdown by
 *     process kind;
 *   flags mode (`--mode=flags`; `--variants=a;b` picks VARIANTS by name or takes flags separated by
 *     spaces): the same jail started directly (as bench/jail-startup.ts does),
 *     N browsers per variant of extra Chromium flags, to choose flags: each variant's PSS per
 *     browser beside the current flags' in the same run.
 *
 * Options (argv `--name=value` or env): --sessions / BENCH_SESSIONS (default 20), --settle-ms /
 * BENCH_SETTLE_MS (idle time before measuring, default 5000), --mode / BENCH_MODE.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { createEngine } from '../src/engine/index.js';
import type { EngineOptions } from '../src/engine/config.js';
import { launchChromium, stopChromium, type LaunchedBrowser } from '../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../src/engine/runtime/chromium/chromium-flags.js';
import { browserJailCommand, jailChromiumArgs, JAIL_USER_DATA, prepareJailRoot } from '../src/engine/runtime/sandbox/browser-jail.js';
import { usableBwrap } from '../src/engine/runtime/sandbox/bwrap.js';
import { findChromium } from '../src/engine/runtime/chromium/find-chromium.js';
import { jailRoots, pssOfTrees, type TreePss } from './pss.js';

function opt(name: string, env: string, dflt: string): string {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : (process.env[env] ?? dflt);
}
const N = Number(opt('sessions', 'BENCH_SESSIONS', '20'));
const SETTLE_MS = Number(opt('settle-ms', 'BENCH_SETTLE_MS', '5000'));
const MODE = opt('mode', 'BENCH_MODE', 'sessions');
const BUDGET_MB = 24 * 1024;

const mb = (kb: number) => kb / 1024;

function printPss(label: string, pss: TreePss, n: number): void {
  const per = mb(pss.totalKb) / n;
  console.log(
    `${label}: ${n} idle headless browsers, PSS total ${mb(pss.totalKb).toFixed(0)} MB, per browser ${per.toFixed(1)} MB → ${Math.floor(BUDGET_MB / per)} fit in 24 GiB`,
  );
  const kinds = [...pss.byKind.entries()].sort((a, b) => b[1].kb - a[1].kb);
  for (const [k, v] of kinds) console.log(`    ${k.padEnd(28)} ${(mb(v.kb) / n).toFixed(1).padStart(6)} MB per browser  (${v.n} processes)`);
}

async function sessionsMode(): Promise<void> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-mem-'));
  const engine = createEngine({
    dataDir,
    port: 0,
    logLevel: 'silent',
    print: () => {},
    maxConcurrentSessions: N + 10,
    standby: 0,
    freezeIdleSeconds: 0,
  } as EngineOptions);
  const { url } = await engine.start();
  const key = (await fsp.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
  const api = (p: string, init: RequestInit = {}) =>
    fetch(url + p, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  const ids: string[] = [];
  try {
    for (let i = 0; i < N; i++) {
      const res = await api('/browsers', { method: 'POST', body: JSON.stringify({ headless: true, timeout_seconds: 3600 }) });
      if (res.status !== 200) throw new Error(`create: ${res.status} ${await res.text()}`);
      ids.push(((await res.json()) as { session_id: string }).session_id);
    }
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const roots = jailRoots(dataDir);
    printPss('sessions (POST /browsers, jailed)', pssOfTrees(roots), roots.length);
  } finally {
    for (let i = 0; i < ids.length; i += 10) await Promise.all(ids.slice(i, i + 10).map((id) => api(`/browsers/${id}`, { method: 'DELETE' })));
    await engine.stop();
    await fsp.rm(dataDir, { recursive: true, force: true });
  }
}

/** Extra flags to compare; each variant is measured beside 'current' in the same run. */
const VARIANTS: Record<string, string[]> = {
  current: [],
  // Headless Chromium 156 preloads the omnibox popup's WebUI (chrome://omnibox-popup.top-chrome/) in a renderer of its own.
  'no WebUI omnibox popup': ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup'],
  // Two crashpad handler processes per browser, for reports nobody collects (breakpad is off).
  'no crashpad': ['--disable-crashpad-for-testing'],
  // The on-device model service (a utility process and its GPU broker) that starts to classify the machine.
  'no on-device model startup': [
    '--disable-features=OnDeviceModelFetchPerformanceClassEveryStartup,OnDeviceModelWarmDrivers,OptimizationGuideModelExecution,OptimizationGuideOnDeviceModel',
  ],
  'no spare renderer': ['--disable-features=SpareRendererForSitePerProcess'],
  'network in process': ['--enable-features=NetworkServiceInProcess,NetworkServiceInProcess2'],
  'gpu in process': ['--in-process-gpu'],
  // Measured, not kept: they give up site isolation between the sites a session visits.
  'renderer limit 1': ['--renderer-process-limit=1'],
  'no site isolation': ['--disable-site-isolation-trials', '--disable-features=IsolateOrigins,site-per-process'],
};

/** Chromium keeps only the last of a repeated --*-features switch: merge them into one. */
function mergeFeatureSwitches(args: string[]): string[] {
  const merged = new Map<string, string[]>();
  const out: string[] = [];
  for (const a of args) {
    const m = /^(--(?:enable|disable)-features)=(.*)$/.exec(a);
    if (!m) {
      out.push(a);
      continue;
    }
    if (!merged.has(m[1])) merged.set(m[1], []);
    merged.get(m[1])!.push(...m[2].split(','));
  }
  for (const [k, v] of merged) out.unshift(`${k}=${[...new Set(v)].join(',')}`);
  return out;
}

async function jailedBrowser(dir: string, bwrap: string, executable: string, extra: string[]): Promise<{ b: LaunchedBrowser; close(): Promise<void> }> {
  for (const d of ['root', 'ud', 'tmp', 'sock']) await fsp.mkdir(path.join(dir, d), { recursive: true });
  await prepareJailRoot(path.join(dir, 'root'));
  const eg = net.createServer(() => {}).listen(path.join(dir, 'egress.sock'));
  const args = mergeFeatureSwitches(
    chromiumArgs({ userDataDir: JAIL_USER_DATA, headless: true, viewport: { width: 1920, height: 1080 }, jailArgs: jailChromiumArgs(), extraArgs: extra }),
  );
  const cmd = await browserJailCommand({
    bwrap,
    root: path.join(dir, 'root'),
    userData: path.join(dir, 'ud'),
    tmp: path.join(dir, 'tmp'),
    sockDir: path.join(dir, 'sock'),
    egressSocket: path.join(dir, 'egress.sock'),
    hide: [],
    executable,
    args,
  });
  const b = await launchChromium({
    executable: cmd.file,
    args: cmd.args,
    env: { PATH: process.env.PATH },
    devtoolsSocket: path.join(dir, 'sock', 'devtools.sock'),
  });
  return {
    b,
    async close() {
      await stopChromium(b);
      eg.close();
    },
  };
}

async function flagsMode(): Promise<void> {
  const bwrap = await usableBwrap();
  const executable = findChromium();
  if (!bwrap || !executable) throw new Error('needs bwrap and Chromium');
  const only = opt('variants', 'BENCH_VARIANTS', '');
  const names = only ? ['current', ...only.split(';').filter((v) => v !== 'current')] : Object.keys(VARIANTS);
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-flags-'));
  const open = new Map<string, Awaited<ReturnType<typeof jailedBrowser>>[]>(names.map((n) => [n, []]));
  try {
    // All variants run side by side, launched in turn, so they share the machine's state (page
    // cache, load) and Chromium's shared pages are split among all of them alike.
    for (let i = 0; i < N; i++)
      for (const name of names)
        open.get(name)!.push(await jailedBrowser(path.join(root, `${names.indexOf(name)}-${i}`), bwrap, executable, VARIANTS[name] ?? name.split(' ')));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    for (const name of names) printPss(`${name} ${(VARIANTS[name] ?? []).join(' ')}`.trim(), pssOfTrees(open.get(name)!.map((o) => o.b.pid)), N);
  } finally {
    for (const list of open.values()) for (const o of list) await o.close();
    await fsp.rm(root, { recursive: true, force: true });
  }
}

(MODE === 'flags' ? flagsMode() : sessionsMode()).catch((err) => {
  console.error(err);
  process.exit(1);
});
