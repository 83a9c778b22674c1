/**
 * `npm run bench:ops`: operations on a running session, all in one run against one engine
 * (SQLite in a temp dir) and one headless session, each figure beside a baseline measured in
 * the same run.
 *
 * BENCH:OPS SECTIONS — owners add theirs below the marked line:
 *   - /curl vs a direct request to the same local URL (bench/ops-curl.ts) — done
 *   - live-view fps and input-to-frame latency on an animating page — TODO (live view)
 *   - telemetry event-to-client latency — TODO (telemetry/replays)
 *   - recording CPU cost — TODO (telemetry/replays)
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { createEngine } from '../src/engine/index.js';
import { formatCurlResult, measureCurl } from './ops-curl.js';

async function main(): Promise<void> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-'));
  const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {} });
  try {
    const { url } = await engine.start();
    const adminKey = (await fsp.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
    const client = new Kernel({ apiKey: adminKey, baseURL: url, maxRetries: 0 });
    const session = await client.browsers.create({ headless: true, timeout_seconds: 600, viewport: { width: 1280, height: 720 } });

    console.log(formatCurlResult(await measureCurl(client, session.session_id)));

    // ---- further bench:ops sections go here (live view, telemetry, recording) ----

    await client.browsers.deleteByID(session.session_id);
  } finally {
    await engine.stop();
    await fsp.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
