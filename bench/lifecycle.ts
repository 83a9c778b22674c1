/**
 * `npm run bench:lifecycle`: the lifecycle benchmark people compare browser services with
 * (BrowserArena's hello-browser through the official SDK). Modes (`--mode=` or BENCH_MODE):
 *   - `published` (default): sessions back to back, one engine with default settings, c1 and c10,
 *     beside a local `chromium.launch` and the raw launch rate (bench/lifecycle-published.ts);
 *   - `interleaved`: a local launch, a standby create and a pool lifecycle in turn, n = 30;
 *   - `idle`: waits for idle CPUs before every batch — only for the cold create against a raw
 *     launch (bench/lifecycle-idle.ts). See docs/bench/README.md.
 *
 * Options (argv `--name=value` or env): --runs / BENCH_RUNS (sessions per row, default 40; 30 when
 * interleaved), --concurrency / BENCH_CONCURRENCY (default "1,10"), --warmup / BENCH_WARMUP (default 10),
 * --engine / BENCH_ENGINE (`process`, default: the engine in its own process as `npm run serve`;
 * `in-process`: in the bench's process, sharing its event loop with the client).
 */
import { opt } from './lifecycle-engine.js';
import { runInterleaved, runPublished } from './lifecycle-published.js';
import { runIdle } from './lifecycle-idle.js';

const MODE = opt('mode', 'BENCH_MODE', 'published');
const WARMUP = Number(opt('warmup', 'BENCH_WARMUP', '10'));
const LEVELS = opt('concurrency', 'BENCH_CONCURRENCY', '1,10')
  .split(',')
  .map(Number)
  .filter((c) => c > 0);

async function main(): Promise<void> {
  if (MODE === 'idle') return runIdle();
  if (MODE === 'interleaved') return runInterleaved(Number(opt('runs', 'BENCH_RUNS', '30')), WARMUP);
  if (MODE === 'published') return runPublished(Number(opt('runs', 'BENCH_RUNS', '40')), LEVELS, WARMUP);
  throw new Error(`--mode must be published, interleaved or idle, not '${MODE}'`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
