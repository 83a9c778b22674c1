/**
 * `npm run bench:api`: requests/s and p50/p99 latency of authenticated `GET /org/projects` on
 * the real engine (SQLite in a temp dir, audit recording on), beside a bare Node `http` server
 * answering the same bytes, measured in the same run with the same load generator (`wrk`, in
 * its own process so it never shares the engine's event loop). Prints both and the ratios.
 * Targets: ≥ 5,000 req/s and within 3× of the bare server.
 *
 * Env: BENCH_DURATION (s per measurement, default 10), BENCH_CONNECTIONS (default 32),
 * BENCH_ROUNDS (engine/bare pairs, best of, default 2).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../src/engine/index.js';
import type { AuditWriter } from '../src/engine/domain/audit/audit-writer.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Result {
  /** Server CPU time (user + system) per request, µs: a figure that other load on the machine disturbs less than req/s. */
  cpuUs: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

function requireWrk(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
  } catch {
    console.error('bench:api needs `wrk` (Debian/Ubuntu: apt-get install -y wrk; macOS: brew install wrk).');
    process.exit(2);
  }
}

/** wrk prints latencies as 812.00us / 1.20ms / 1.02s; returns milliseconds. */
function ms(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value);
  if (!m) throw new Error(`cannot read wrk latency '${value}'`);
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

function runWrk(wrk: string, url: string, headers: string[], seconds: number, serverCpu: () => number): Promise<Result> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...headers.flatMap((h) => ['-H', h]), url];
  return new Promise((resolve, reject) => {
    const cpuBefore = serverCpu();
    const child = spawn(wrk, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const cpu = serverCpu() - cpuBefore;
      if (code !== 0) return reject(new Error(`wrk exited ${code}:\n${out}`));
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const p50 = /\s50%\s+(\S+)/.exec(out)?.[1];
      const p99 = /\s99%\s+(\S+)/.exec(out)?.[1];
      const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const errors = non2xx + (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
      if (!rps || !p50 || !p99) return reject(new Error(`cannot read wrk output:\n${out}`));
      resolve({ rps, p50: ms(p50), p99: ms(p99), requests, errors, cpuUs: cpu / requests });
    });
  });
}

/** The bare baseline, in its own process: same status, same body bytes, same content type. */
function startBare(body: string, contentType: string): Promise<{ url: string; child: ChildProcess }> {
  const code = `
    const http = require('node:http');
    const body = Buffer.from(process.env.BODY, 'utf8');
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': process.env.CT, 'content-length': body.length, 'x-has-more': 'false', 'x-next-offset': '0' });
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));`;
  const child = spawn(process.execPath, ['-e', code], { env: { ...process.env, BODY: body, CT: contentType }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ url: `http://127.0.0.1:${String(d).trim()}/org/projects`, child }));
    child.once('error', reject);
  });
}

/** CPU µs used so far by this process (the engine) or by a child, read from /proc (Linux). */
const ownCpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const TICK_US = 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);
function childCpu(pid: number): () => number {
  return () => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime
  };
}

const fmt = (r: Result) =>
  `${Math.round(r.rps).toLocaleString('en-US').padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   CPU ${r.cpuUs.toFixed(1).padStart(6)} µs/req   (${r.requests} requests, ${r.errors} errors)`;

async function main(): Promise<void> {
  const wrk = requireWrk();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bd-bench-api-'));
  const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {} });
  const { url } = await engine.start();
  const key = engine.adminApiKey!;
  const target = `${url}/org/projects`;
  const sample = await fetch(target, { headers: { authorization: `Bearer ${key}` } });
  if (sample.status !== 200) throw new Error(`GET /org/projects answered ${sample.status}`);
  const body = await sample.text();
  const bare = await startBare(body, sample.headers.get('content-type') ?? 'application/json');
  const auth = [`Authorization: Bearer ${key}`];

  console.log(`GET /org/projects, wrk -t1 -c${CONNECTIONS}, ${DURATION}s per run, best of ${ROUNDS}; ${os.cpus().length} CPUs, Node ${process.version}`);
  const engineRuns: Result[] = [];
  const bareRuns: Result[] = [];
  try {
    const bareCpu = childCpu(bare.child.pid!);
    await runWrk(wrk, target, auth, 2, ownCpu); // warm-up: JIT, caches, SQLite pages
    await runWrk(wrk, bare.url, auth, 2, bareCpu);
    for (let i = 0; i < ROUNDS; i++) {
      engineRuns.push(await runWrk(wrk, target, auth, DURATION, ownCpu));
      bareRuns.push(await runWrk(wrk, bare.url, auth, DURATION, bareCpu));
    }
  } finally {
    bare.child.kill();
  }
  const writer = engine.services.auditWriter as AuditWriter;
  await writer.flush();
  const { n } = await engine.context.db
    .selectFrom('audit_logs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await engine.stop();
  await fs.rm(dataDir, { recursive: true, force: true });

  const best = (rs: Result[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const e = best(engineRuns);
  const b = best(bareRuns);
  const sent = engineRuns.reduce((a, r) => a + r.requests, 0);
  console.log(`engine (SQLite, audit on): ${fmt(e)}`);
  console.log(`bare node:http           : ${fmt(b)}`);
  console.log(
    `ratio engine vs bare     :  throughput ${(b.rps / e.rps).toFixed(2)}x lower   p50 ${(e.p50 / b.p50).toFixed(2)}x   p99 ${(e.p99 / b.p99).toFixed(2)}x   CPU/req ${(e.cpuUs / b.cpuUs).toFixed(2)}x`,
  );
  const load = os.loadavg()[0];
  if (load > os.cpus().length)
    console.log(`note: load average ${load.toFixed(1)} on ${os.cpus().length} CPUs — other work competed with this run; req/s is depressed, CPU/req less so`);
  console.log(`audit rows written: ${n} (measured engine requests: ${sent}, plus warm-up and setup)`);
  const ok = e.rps >= 5000 && b.rps / e.rps <= 3;
  console.log(ok ? 'targets met: ≥ 5,000 req/s and within 3× of bare' : 'targets NOT met: want ≥ 5,000 req/s and within 3× of bare');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
