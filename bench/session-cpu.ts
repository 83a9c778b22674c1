/**
 * Machine CPU (all processes, from /proc/stat) one session costs, back to back, against what one
 * raw launch costs: where the c1 loop's sessions/s stands against the raw launch rate when both
 * are CPU-bound. Rows, each n sessions after 3 warm-ups, the engine in its own process and idle
 * between rows (its standby refilled):
 *   - raw launch: spawn → DevTools answered → killed, two at once (bench:lifecycle's raw rate);
 *   - raw launch + goto: the same browser, Playwright connects and opens a page before the kill;
 *   - `POST /browsers` lifecycle: create, Playwright connect, first `goto`, delete (the c1 row);
 *   - local `chromium.launch` lifecycle: Playwright's own launch, `goto`, close.
 * Prints CPU-seconds per session (user + system + softirq of every process) and wall time.
 *
 *   npx tsx bench/session-cpu.ts [--runs=20]
 */
import fs from 'node:fs';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { startEngine, sdkProvider, LOCAL_CHROMIUM } from './lifecycle-engine.js';
import { launchRawChromium } from './raw-launch.js';
import { helloBrowser, helloLocal, type Provider } from './hello-browser.js';

const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 20);
const TICKS_PER_SECOND = 100;

/** Busy CPU-seconds of the whole machine so far (/proc/stat's cpu line: user, nice, system, irq, softirq; not idle, iowait or the hypervisor's steal). */
function busySeconds(): number {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq] = f;
  return (user + nice + system + irq + softirq) / TICKS_PER_SECOND;
}

/** CPU-seconds the engine's own process (not its children: the jails and browsers) has used so far. */
function engineSeconds(): number {
  if (!engine.pid) return 0;
  const f = fs.readFileSync(`/proc/${engine.pid}/stat`, 'utf8');
  const after = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(after[11]) + Number(after[12])) / TICKS_PER_SECOND;
}

async function row(name: string, one: () => Promise<unknown>, parallel = 1): Promise<void> {
  for (let i = 0; i < 3; i++) await one();
  await new Promise((r) => setTimeout(r, 3000));
  const cpu0 = busySeconds();
  const engine0 = engineSeconds();
  const t0 = performance.now();
  let left = RUNS;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (left-- > 0) await one();
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = busySeconds() - cpu0;
  const own = engineSeconds() - engine0;
  console.log(
    `${name.padEnd(40)} ${(cpu / RUNS).toFixed(2).padStart(6)} CPU-s/session  ${(RUNS / wall).toFixed(2).padStart(5)} sessions/s  (${RUNS} in ${wall.toFixed(1)} s)` +
      (own ? `  engine process ${(own / RUNS).toFixed(2)} CPU-s/session` : ''),
  );
}

const server = http.createServer((_q, r) => r.end('<!doctype html><title>hello</title><p>hello browser</p>'));
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
const engine = await startEngine();
try {
  console.log(`session-cpu: ${RUNS} sessions per row`);
  await row('raw launch (2 at once)', async () => (await launchRawChromium()).stop(), 2);
  await row('raw launch + connect + goto', async () => {
    const raw = await launchRawChromium();
    const b = await chromium.connectOverCDP(raw.browser.wsUrl);
    const page = b.contexts()[0].pages()[0] ?? (await b.contexts()[0].newPage());
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await b.close().catch(() => {});
    await raw.stop();
  });
  const sdk = sdkProvider('engine', engine.client);
  await row('POST /browsers lifecycle (c1)', () => helloBrowser(sdk, url));
  const quiet: Provider = {
    ...sdk,
    async create() {
      const b = await engine.client.browsers.create({ headless: true, telemetry: { enabled: false } });
      return { id: b.session_id, cdpUrl: b.cdp_ws_url };
    },
  };
  await row('… with telemetry: { enabled: false }', () => helloBrowser(quiet, url));
  await row('local chromium.launch lifecycle', () => helloLocal(LOCAL_CHROMIUM, url));
} finally {
  await engine.stop();
  server.close();
}
