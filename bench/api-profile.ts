/**
 * Profiling aid for `bench:api`: starts the engine (SQLite in a temp dir, audit on), warms it
 * up, then drives authenticated `GET /org/projects` with `wrk` for BENCH_DURATION seconds while
 * the V8 CPU profiler runs (only during that window, so start-up does not pollute it), prints the
 * server's CPU µs per request and writes the profile to BENCH_PROFILE (a `.cpuprofile` file that
 * Chrome DevTools opens) if set. Run: `BENCH_PROFILE=/tmp/api.cpuprofile npx tsx bench/api-profile.ts`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../src/engine/index.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-bench-prof-'));
  const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {} });
  const { url } = await engine.start();
  const wrk = (seconds: number) =>
    new Promise<string>((resolve, reject) => {
      const args = ['-t1', '-c32', `-d${seconds}s`, '-H', `Authorization: Bearer ${engine.adminApiKey!}`, `${url}/org/projects`];
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
      let s = '';
      child.stdout.on('data', (d) => (s += d));
      child.on('exit', () => resolve(s));
      child.on('error', reject);
    });
  await wrk(2); // warm-up: JIT, caches
  const session = new Session();
  const profile = process.env.BENCH_PROFILE;
  if (profile) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const before = process.cpuUsage();
  const out = await wrk(DURATION);
  const cpu = process.cpuUsage(before);
  if (profile) {
    const { profile: data } = await session.post('Profiler.stop');
    await fs.writeFile(profile, JSON.stringify(data));
    session.disconnect();
  }
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  console.log(out.trim());
  console.log(`CPU ${((cpu.user + cpu.system) / requests).toFixed(1)} µs/req`);
  await engine.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
