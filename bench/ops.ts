/**
 * `npm run bench:ops`: operations on a running session, all in one run against one engine
 * (SQLite in a temp dir) and one headless session, each figure beside a baseline measured in
 * the same run.
 *
 * BENCH:OPS SECTIONS — owners add theirs below the marked line:
 *   - /curl vs a direct request to the same local URL (bench/ops-curl.ts) — done
 *   - live-view fps and input-to-frame latency on an animating page (bench/ops-live.ts) — done
 *   - telemetry event-to-client latency vs raw CDP (bench/ops-telemetry.ts) — done
 *   - recording CPU cost, recording vs not (bench/ops-telemetry.ts) — done
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { createEngine } from '../src/engine/index.js';
import { formatCurlResult, measureCurl } from './ops-curl.js';
import { ANIMATED, CLICKABLE, inputToFrame, liveViewFps, navigate, pct, rawScreencastFps } from './ops-live.js';
import { recordingCpu, telemetryLatency } from './ops-telemetry.js';

const f1 = (n: number) => n.toFixed(1);

async function main(): Promise<void> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-'));
  // The curl rows fetch a local server on 127.0.0.1, which a server engine's pages may not reach by default.
  const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {}, egressLoopback: true });
  try {
    const { url } = await engine.start();
    const adminKey = (await fsp.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
    const client = new Kernel({ apiKey: adminKey, baseURL: url, maxRetries: 0 });
    const session = await client.browsers.create({
      headless: true,
      timeout_seconds: 600,
      viewport: { width: 1280, height: 720 },
      telemetry: { browser: { console: { enabled: true } } },
    });

    console.log(formatCurlResult(await measureCurl(client, session.session_id)));

    // ---- further bench:ops sections go here (live view, telemetry, recording) ----
    const id = session.session_id;
    const jwt = new URL(session.cdp_ws_url).searchParams.get('jwt')!;
    const liveWs = `${url.replace(/^http/, 'ws')}/browsers/${id}/live/ws?jwt=${encodeURIComponent(jwt)}`;
    const window = Number(process.env.BENCH_FPS_MS ?? 5000);

    await navigate(session.cdp_ws_url, ANIMATED);
    const raw = await rawScreencastFps(session.cdp_ws_url, window);
    const live = await liveViewFps(liveWs, window);
    console.log(
      `live view @1280x720, animating page: ${f1(live)} fps; raw CDP screencast (baseline): ${f1(raw)} fps; ratio ${(live / raw).toFixed(2)} (target >= 25 fps)`,
    );

    await navigate(session.cdp_ws_url, CLICKABLE);
    const input = await inputToFrame(liveWs, Number(process.env.BENCH_INPUT_SAMPLES ?? 40));
    console.log(
      `input-to-frame via live view: p50 ${f1(pct(input.samples, 50))} ms, p95 ${f1(pct(input.samples, 95))} ms over ${input.samples.length} clicks (first repaint colour ${input.firstColour}; target p50 <= 60 ms)`,
    );

    // Baseline: a CDP client straight on Chromium (not through the engine's CDP proxy), like the collector.
    const direct = (engine.services.sessions as { get(id: string): { browserCdpUrl(): string } }).get(id).browserCdpUrl();
    const tel = await telemetryLatency(url, adminKey, id, direct, Number(process.env.BENCH_TELEMETRY_SAMPLES ?? 200));
    console.log(
      `telemetry console.log -> SSE client: p50 ${f1(tel.sse.p50)} ms, p99 ${f1(tel.sse.p99)} ms (${tel.received}/${tel.n} received); raw CDP Runtime.consoleAPICalled straight from Chromium (baseline): p50 ${f1(tel.cdp.p50)} ms, p99 ${f1(tel.cdp.p99)} ms; p99 ratio ${(tel.sse.p99 / tel.cdp.p99).toFixed(2)} (target p99 <= 20 ms)`,
    );

    await navigate(session.cdp_ws_url, ANIMATED);
    const cpu = await recordingCpu(client, id, Number(process.env.BENCH_RECORD_MS ?? 10_000));
    const total = (c: { engine: number; ffmpeg: number; chromium: number }) => c.engine + c.ffmpeg + c.chromium;
    console.log(
      `recording CPU over ${cpu.seconds} s (10 fps, animating page): engine ${f1(cpu.recording.engine)} s + ffmpeg ${f1(cpu.recording.ffmpeg)} s + chromium ${f1(cpu.recording.chromium)} s = ${f1(total(cpu.recording))} s; ` +
        `not recording (baseline): engine ${f1(cpu.idle.engine)} s + chromium ${f1(cpu.idle.chromium)} s = ${f1(total(cpu.idle))} s; ratio ${(total(cpu.recording) / Math.max(0.01, total(cpu.idle))).toFixed(2)}; extra ${f1((total(cpu.recording) - total(cpu.idle)) / cpu.seconds)} cores`,
    );

    await client.browsers.deleteByID(session.session_id);
  } finally {
    await engine.stop();
    await fsp.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
