/**
 * `npm run bench:launch-rate`: how many browsers this machine launches per second at each launch
 * concurrency (raw Chromium as sessions launch it, bench/raw-launch.ts), so the standby's
 * parallel launches (`--standby-launches`) can be set where launches/s stops rising. Each level
 * keeps c launches going for --seconds (default 15) and counts the ones that finished.
 *
 * Options: --levels / BENCH_LEVELS (default "1,2,3,4"), --seconds / BENCH_SECONDS (default 15).
 */
import os from 'node:os';
import { rawChromiumLaunch } from './raw-launch.js';
import { p50 } from './stats.js';

function opt(name: string, env: string, dflt: string): string {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : (process.env[env] ?? dflt);
}
const LEVELS = opt('levels', 'BENCH_LEVELS', '1,2,3,4').split(',').map(Number);
const SECONDS = Number(opt('seconds', 'BENCH_SECONDS', '15'));

async function level(c: number): Promise<{ perSecond: number; p50: number }> {
  const times: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  // Each worker launches back to back until the time is up; the last launch counts if it started in time.
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (performance.now() < end) times.push(await rawChromiumLaunch());
    }),
  );
  return { perSecond: times.length / ((performance.now() - t0) / 1000), p50: p50(times) };
}

async function main(): Promise<void> {
  await rawChromiumLaunch();
  console.log(
    `bench:launch-rate — ${os.availableParallelism()} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('concurrency  launches/s  launch p50 ms');
  for (const c of LEVELS) {
    const r = await level(c);
    console.log(`${String(c).padStart(11)}  ${r.perSecond.toFixed(2).padStart(10)}  ${r.p50.toFixed(0).padStart(13)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
