/**
 * Where a back-to-back session's time goes after its create: Playwright `connectOverCDP`, the
 * first `goto`, and the release, each broken into the CDP commands Playwright sent (time from
 * send to answer, summed per method over the step) — for a session of the engine (through its
 * CDP proxy, a standby browser in its jail) and, interleaved in the same run, for raw Chromium
 * launched with the same flags on the host and connected to directly. What differs between the
 * two columns is what the engine adds.
 *
 *   npx tsx bench/connect-profile.ts [--runs=20] [--no-raw] [--no-telemetry] [--new-page] [--raw-proxy]
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { p50 } from './stats.js';

process.env.DEBUG = 'pw:protocol';
const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 20);
/** `--no-raw`: engine sessions back to back, nothing between them (as bench:lifecycle's c1 row). */
const RAW = !process.argv.includes('--no-raw');
/** `--no-telemetry`: sessions created with `telemetry: { enabled: false }` (no collector on their tabs), for an A/B against the default categories. */
const TELEMETRY = !process.argv.includes('--no-telemetry');
/** `--new-page`: the goto runs in a tab Playwright opens, not in the browser's first tab (an A/B on the first tab's renderer). */
const NEW_PAGE = process.argv.includes('--new-page');
/**
 * `--raw-proxy`: raw Chromium sends everything, loopback included, through a plain forwarding
 * proxy in this process (`--proxy-server` + `<-loopback>`, as a jailed browser does), so raw and
 * engine differ by the jail and the engine, not by "proxied or not".
 */
const RAW_PROXY = process.argv.includes('--raw-proxy');

/** Protocol lines Playwright's debug logger writes, timestamped as they arrive. */
const sent = new Map<number, { method: string; t: number }>();
let step: string | undefined;
let stepStart = 0;
const seenThisStep = new Set<string>();
/**
 * A `goto`'s timeline: when (ms after the step began) the events of its navigation arrived at the
 * client, and the document response's own timing as Chromium measured it (proxy, connect, send →
 * headers), so the network part and the rendering part of the gap show apart.
 */
const TIMELINE_EVENTS = ['Network.requestWillBeSent', 'Network.responseReceived', 'Page.frameNavigated', 'Page.domContentEventFired'];
const timeline = new Map<string, Map<string, number[]>>();
const markTimeline = (name: string, ms: number): void => {
  if (!step?.endsWith('goto')) return;
  const m = timeline.get(step) ?? timeline.set(step, new Map()).get(step)!;
  (m.get(name) ?? m.set(name, []).get(name)!).push(ms);
};
const perStep = new Map<string, Map<string, number[]>>();
const origWrite = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
  if (!text.includes('pw:protocol')) return origWrite(chunk as string, ...(rest as []));
  const t = performance.now();
  for (const line of text.split('\n')) {
    const m = /(SEND ►|◀ RECV) (\{.*\})/.exec(line);
    if (!m) continue;
    let msg: { id?: number; method?: string; params?: { type?: string; response?: { timing?: Record<string, number> } } };
    try {
      msg = JSON.parse(m[2].replace(/\s\+\d+m?s$/, ''));
    } catch {
      const id = /"id":(\d+)/.exec(m[2]);
      const method = /"method":"([^"]+)"/.exec(m[2]);
      msg = { id: id ? Number(id[1]) : undefined, method: method?.[1] };
    }
    if (m[1].endsWith('RECV') && msg.method && TIMELINE_EVENTS.includes(msg.method)) {
      // The first of each per goto (a document's; later ones are subresources or other frames).
      if (!seenThisStep.has(msg.method)) {
        seenThisStep.add(msg.method);
        markTimeline(`${msg.method} (arrived)`, t - stepStart);
      }
      const timing = msg.params?.type === 'Document' ? msg.params.response?.timing : undefined;
      if (msg.method === 'Network.responseReceived' && timing) {
        // Chromium's own marks, ms after the request started (-1: the phase did not happen, e.g. a reused connection).
        for (const f of ['proxyStart', 'proxyEnd', 'dnsStart', 'dnsEnd', 'connectStart', 'connectEnd', 'sendStart', 'sendEnd', 'receiveHeadersEnd'])
          if (typeof timing[f] === 'number' && timing[f] >= 0) markTimeline(`document timing: ${f} (Chromium)`, timing[f]);
      }
    }
    if (m[1].startsWith('SEND') && msg.id !== undefined) sent.set(msg.id, { method: msg.method ?? '?', t });
    else if (msg.id !== undefined && sent.has(msg.id)) {
      const s = sent.get(msg.id)!;
      sent.delete(msg.id);
      if (!step) continue;
      const m2 = perStep.get(step) ?? new Map<string, number[]>();
      perStep.set(step, m2);
      (m2.get(s.method) ?? m2.set(s.method, []).get(s.method)!).push(t - s.t);
    }
  }
  return true;
}) as typeof process.stderr.write;

const { chromium } = await import('playwright-core');
const { startEngine } = await import('./lifecycle-engine.js');
const { launchRawChromium } = await import('./raw-launch.js');

const { serveHelloPage } = await import('./hello-browser.js');
const { startForwardProxy } = await import('./forward-proxy.js');
const page = await serveHelloPage();
const url = page.url;
/** `--raw-proxy`'s plain forwarding proxy. */
const proxy = RAW_PROXY ? await startForwardProxy({ port: 0 }) : undefined;
const rawArgs = proxy ? [`--proxy-server=http://127.0.0.1:${(proxy.address() as { port: number }).port}`, '--proxy-bypass-list=<-loopback>'] : [];

const times = new Map<string, number[]>();
const rec = (k: string, v: number) => (times.get(k) ?? times.set(k, []).get(k)!).push(v);
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  step = name;
  const t = performance.now();
  stepStart = t;
  seenThisStep.clear();
  try {
    return await fn();
  } finally {
    rec(name, performance.now() - t);
    step = undefined;
  }
}

async function session(kind: 'engine' | 'raw', create: () => Promise<{ cdp: string; release: () => Promise<void> }>) {
  const s = await timed(`${kind} create`, create);
  const browser = await timed(`${kind} connect`, () => chromium.connectOverCDP(s.cdp));
  await timed(`${kind} goto`, async () => {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = (NEW_PAGE ? undefined : context.pages()[0]) ?? (await context.newPage());
    await page.goto(url, { waitUntil: 'domcontentloaded' });
  });
  await timed(`${kind} release`, s.release);
  await browser.close().catch(() => {});
}

const engine = await startEngine();
const rawDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-connect-raw-'));
try {
  const raw = async () => {
    const { browser, stop } = await launchRawChromium(rawDir, rawArgs);
    return { cdp: browser.wsUrl, release: stop };
  };
  const viaEngine = async () => {
    const b = await engine.client.browsers.create({ headless: true, ...(TELEMETRY ? {} : { telemetry: { enabled: false } }) });
    return { cdp: b.cdp_ws_url, release: () => engine.client.browsers.deleteByID(b.session_id) };
  };
  for (let i = 0; i < 3; i++) {
    await session('engine', viaEngine);
    if (RAW) await session('raw', raw);
  }
  times.clear();
  perStep.clear();
  timeline.clear();
  for (let i = 0; i < RUNS; i++) {
    await session('engine', viaEngine);
    if (RAW) await session('raw', raw);
  }
} finally {
  await engine.stop();
  page.close();
  proxy?.close();
  await fsp.rm(rawDir, { recursive: true, force: true });
}

console.log(`\nconnect-profile: ${RUNS} sessions each, p50 ms`);
const timelineLines: string[] = [];
for (const [k, m] of timeline) {
  timelineLines.push(`\n${k}: timeline (p50 ms; "arrived": after the step began, at the client)`);
  for (const [ev, v] of m) timelineLines.push(`  ${ev.padEnd(44)} ${p50(v).toFixed(1).padStart(8)}  (n ${v.length})`);
}
for (const [k, v] of times) console.log(`${k.padEnd(20)} ${p50(v).toFixed(1).padStart(8)}`);
for (const [k, m] of perStep) {
  if (k.endsWith('create')) continue;
  console.log(`\n${k}: CDP commands (count per step, p50 of the per-step sum, ms)`);
  const rows = [...m].map(([method, v]) => ({ method, n: v.length / RUNS, sum: v.reduce((a, b) => a + b, 0) / RUNS, max: Math.max(...v) }));
  for (const r of rows.sort((a, b) => b.sum - a.sum).slice(0, 12))
    console.log(`  ${r.method.padEnd(44)} ×${r.n.toFixed(1).padStart(4)}  mean sum ${r.sum.toFixed(1).padStart(7)}  max ${r.max.toFixed(1)}`);
}
console.log(timelineLines.join('\n'));
