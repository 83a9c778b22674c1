/**
 * The `/curl` figure of `npm run bench:ops`: the time of `client.browsers.curl` (official
 * client → engine → the session's browser network stack → a local HTTP server and back)
 * beside a direct undici request to the same URL, both measured in the same run, interleaved
 * so machine load affects them alike. Reports p50/p95 of each and their ratio.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type Kernel from '@onkernel/sdk';

export interface CurlBenchResult {
  iterations: number;
  curl: { p50: number; p95: number };
  direct: { p50: number; p95: number };
  /** curl p50 / direct p50 */
  ratioP50: number;
  ratioP95: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Measures `/curl` against a small local JSON endpoint on an existing session. */
export async function measureCurl(client: Kernel, sessionId: string, opts: { iterations?: number; warmup?: number } = {}): Promise<CurlBenchResult> {
  const iterations = opts.iterations ?? Number(process.env.BENCH_CURL_ITERATIONS ?? 200);
  const warmup = opts.warmup ?? 20;
  const payload = JSON.stringify({ ok: true, pad: 'x'.repeat(1024) });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(payload);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data`;
  const curlOnce = async () => {
    const t = performance.now();
    const r = await client.browsers.curl(sessionId, { url });
    if (r.status !== 200 || r.body !== payload) throw new Error(`unexpected /curl answer ${r.status}`);
    return performance.now() - t;
  };
  const directOnce = async () => {
    const t = performance.now();
    const r = await request(url);
    if ((await r.body.text()) !== payload) throw new Error('unexpected direct answer');
    return performance.now() - t;
  };
  try {
    for (let i = 0; i < warmup; i++) await Promise.all([curlOnce(), directOnce()]);
    const curl: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < iterations; i++) {
      // alternate which goes first so neither always runs on a warmer cache
      if (i % 2) {
        curl.push(await curlOnce());
        direct.push(await directOnce());
      } else {
        direct.push(await directOnce());
        curl.push(await curlOnce());
      }
    }
    curl.sort((a, b) => a - b);
    direct.sort((a, b) => a - b);
    const c = { p50: percentile(curl, 50), p95: percentile(curl, 95) };
    const d = { p50: percentile(direct, 50), p95: percentile(direct, 95) };
    return { iterations, curl: c, direct: d, ratioP50: c.p50 / d.p50, ratioP95: c.p95 / d.p95 };
  } finally {
    await new Promise((r) => server.close(r));
  }
}

export function formatCurlResult(r: CurlBenchResult): string {
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  return [
    `/curl through the browser (${r.iterations} requests, same local URL):`,
    `  browsers.curl   p50 ${ms(r.curl.p50)}   p95 ${ms(r.curl.p95)}`,
    `  direct (undici) p50 ${ms(r.direct.p50)}   p95 ${ms(r.direct.p95)}`,
    `  ratio           p50 ${r.ratioP50.toFixed(1)}×   p95 ${r.ratioP95.toFixed(1)}×`,
  ].join('\n');
}
