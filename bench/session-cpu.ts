/**
 * Machine CPU (all processes) one session costs, back to back, against what one raw launch costs:
 * where the c1 loop's sessions/s stands against the raw launch rate when both are CPU-bound. Rows,
 * each n sessions after 3 warm-ups, the engine in its own process:
 *   - raw launch: spawn → DevTools answered → killed, two at once (bench:lifecycle's raw rate);
 *   - raw launch + connect + goto: hello-browser on a raw browser (killed as its release);
 *   - `POST /browsers` lifecycle: create, Playwright connect, first `goto`, delete (the c1 row),
 *     with default telemetry and with `telemetry: { enabled: false }`;
 *   - local `chromium.launch` lifecycle: Playwright's own launch, `goto`, close.
 * An engine row's CPU is read once the standby's launches have settled after the loop, so the
 * refills its creates started count; the ready browsers at the start and end are printed (a
 * difference is launches one side counted and the other did not). Prints CPU-seconds per session
 * (user, nice, system, irq of every core: `os.cpus()`), sessions/s over the loop's own wall
 * time, and for the engine rows its own process's CPU (not the jails and browsers below it).
 *
 *   npx tsx bench/session-cpu.ts [--runs=20]
 */
import os from 'node:os';
import { startEngine, sdkProvider, LOCAL_CHROMIUM } from './lifecycle-engine.js';
import { launchRawChromium } from './raw-launch.js';
import { helloBrowser, helloLocal, serveHelloPage, type Provider } from './hello-browser.js';
import { cpuMsOf } from './proc-cpu.js';

const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 20);

/** Busy CPU-seconds of the whole machine so far. */
function busySeconds(): number {
  let ms = 0;
  for (const c of os.cpus()) ms += c.times.user + c.times.nice + c.times.sys + c.times.irq;
  return ms / 1000;
}

const page = await serveHelloPage();
const engine = await startEngine();
const engineSeconds = (): number => (engine.pid ? cpuMsOf(engine.pid, true) / 1000 : 0);

/** Resolves once no standby launch runs (at most 30 s), with the ready count then. */
async function standbySettled(): Promise<number | undefined> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await engine.standby();
    if (!s || s.launching === 0 || Date.now() > deadline) return s?.ready;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function row(name: string, one: () => Promise<unknown>, o: { parallel?: number; standby?: boolean } = {}): Promise<void> {
  for (let i = 0; i < 3; i++) await one();
  await new Promise((r) => setTimeout(r, 3000));
  const readyBefore = o.standby ? await standbySettled() : undefined;
  const cpu0 = busySeconds();
  const engine0 = engineSeconds();
  const t0 = performance.now();
  let left = RUNS;
  await Promise.all(
    Array.from({ length: o.parallel ?? 1 }, async () => {
      while (left-- > 0) await one();
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const readyAfter = o.standby ? await standbySettled() : undefined;
  const cpu = busySeconds() - cpu0;
  const own = engineSeconds() - engine0;
  console.log(
    `${name.padEnd(40)} ${(cpu / RUNS).toFixed(2).padStart(6)} CPU-s/session  ${(RUNS / wall).toFixed(2).padStart(5)} sessions/s  (${RUNS} in ${wall.toFixed(1)} s)` +
      (o.standby ? `  engine process ${(own / RUNS).toFixed(2)} CPU-s/session, standby ready ${readyBefore} → ${readyAfter}` : ''),
  );
}

/** Raw Chromium as a hello-browser provider: create launches it, release kills it. */
const rawProvider = (): Provider => {
  const stops = new Map<string, () => Promise<void>>();
  return {
    name: 'raw',
    async create() {
      const raw = await launchRawChromium();
      const id = String(raw.browser.pid);
      stops.set(id, raw.stop);
      return { id, cdpUrl: raw.browser.wsUrl };
    },
    async release(id) {
      await stops.get(id)?.();
      stops.delete(id);
    },
  };
};

try {
  console.log(`session-cpu: ${RUNS} sessions per row`);
  await row('raw launch (2 at once)', async () => (await launchRawChromium()).stop(), { parallel: 2 });
  const raw = rawProvider();
  await row('raw launch + connect + goto', () => helloBrowser(raw, page.url));
  const sdk = sdkProvider('engine', engine.client);
  await row('POST /browsers lifecycle (c1)', () => helloBrowser(sdk, page.url), { standby: true });
  const quiet: Provider = {
    ...sdk,
    async create() {
      const b = await engine.client.browsers.create({ headless: true, telemetry: { enabled: false } });
      return { id: b.session_id, cdpUrl: b.cdp_ws_url };
    },
  };
  await row('… with telemetry: { enabled: false }', () => helloBrowser(quiet, page.url), { standby: true });
  await row('local chromium.launch lifecycle', () => helloLocal(LOCAL_CHROMIUM, page.url));
} finally {
  await engine.stop();
  page.close();
}
