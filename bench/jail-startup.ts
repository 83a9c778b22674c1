/**
 * `npm run bench:jail`: where a jailed browser's start-up goes, beside raw Chromium in the same
 * run. Launches per round, interleaved: raw Chromium on the host (`--no-sandbox` as root, the
 * floor); the same without CAP_SYS_NICE (root only: Chromium then cannot give its display-critical
 * threads nice -8, as in any user namespace); raw Chromium under bwrap with only a new mount
 * namespace (`bwrap (no userns)`: bwrap's own cost, root only); the same with a new user namespace
 * (`userns only`), and with RLIMIT_NICE 28 (only where the bench may raise it: CAP_SYS_RESOURCE);
 * the browser jail with Chromium's own sandbox on (what sessions use) and with `--no-sandbox`;
 * Chromium's sandbox on as user nobody outside any user namespace of ours, with CAP_SYS_NICE and
 * without (root only: what the sandbox costs by itself, and what the priorities are worth to it).
 * Prints medians of launch → `Browser.getVersion` answered (wall) and of the CPU time the whole
 * process tree used until then (user + system, bench/proc-cpu.ts: the work, which a loaded
 * machine does not distort), each as a ratio to raw.
 * Env: BENCH_ITERATIONS (default 8); BENCH_VARIANTS (`;`-separated names, default all);
 * BENCH_STRACE=<dir>: each launch runs under `strace -f -c` and its syscall summary (calls and
 * errors per syscall, whole tree) goes to `<dir>/<variant>.<round>.txt` (timings then mean little);
 * with BENCH_STRACE_FAILED=1 the file lists every failing syscall with its arguments instead
 * (`strace -f -Z`), to diff what fails in one variant and not in another.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { launchChromium, stopChromium, type LaunchedBrowser } from '../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../src/engine/runtime/chromium/chromium-flags.js';
import { browserJailCommand, jailChromiumArgs, JAIL_USER_DATA, prepareJailRoot } from '../src/engine/runtime/sandbox/browser-jail.js';
import { usableBwrap } from '../src/engine/runtime/sandbox/bwrap.js';
import { findChromium } from '../src/engine/runtime/chromium/find-chromium.js';
import { cpuOfTree } from './proc-cpu.js';

const bwrap = (await usableBwrap())!;
// The same executable sessions use (the Debian wrapper script would add its own start-up).
const executable = findChromium();
if (!executable) throw new Error('no Chromium found');
const ITER = Number(process.env.BENCH_ITERATIONS ?? 8);
const STRACE = process.env.BENCH_STRACE;
const root = process.getuid?.() === 0;
/** CAP_SYS_RESOURCE (bit 24 of CapEff): needed to raise RLIMIT_NICE's hard limit for a child (a container's root may lack it). */
const canRaiseRlimits = (() => {
  const eff = /^CapEff:\s*([0-9a-f]+)/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
  return !!eff && (BigInt(`0x${eff}`) & (1n << 24n)) !== 0n;
})();
const ALL = [
  'raw',
  ...(root ? ['raw, no CAP_SYS_NICE', 'bwrap (no userns)'] : []),
  'userns only',
  ...(canRaiseRlimits ? ['userns + RLIMIT_NICE'] : []),
  'jail',
  'jail+nosandbox',
  ...(root ? ['sandbox, uid, CAP_SYS_NICE', 'sandbox, uid'] : []),
];
const VARIANTS = process.env.BENCH_VARIANTS ? process.env.BENCH_VARIANTS.split(';').filter((v) => ALL.includes(v)) : ALL;
/**
 * Chromium gives its display-critical threads (browser IO, compositors, GPU main) nice -8. Root on
 * the host may (CAP_SYS_NICE); in a user namespace only RLIMIT_NICE allows it (20 - 28 = -8).
 */
const NICE_RLIMIT = ['prlimit', '--nice=28:28', '--'];
const viewport = { width: 1920, height: 1080 };

interface Sample {
  wallMs: number;
  cpuMs: number;
  byKind: Map<string, { ms: number; n: number }>;
}
const samples = new Map<string, Sample[]>(VARIANTS.map((v) => [v, []]));

interface Launch {
  executable: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  devtoolsSocket?: string;
}

/** One timed launch: wall time to ready, then the tree's CPU at that moment; the browser is stopped after. */
async function measure(name: string, round: number, l: Launch): Promise<string> {
  let { executable: file, args } = l;
  if (STRACE) {
    const mode = process.env.BENCH_STRACE_FAILED === '1' ? ['-Z', '-s', '120'] : ['-c', '-S', 'calls'];
    args = ['-f', '-qq', ...mode, '-o', path.join(STRACE, `${name.replace(/\W+/g, '-')}.${round}.txt`), '--', file, ...args];
    file = 'strace';
  }
  const t0 = performance.now();
  const b: LaunchedBrowser = await launchChromium({ executable: file, args, env: l.env, devtoolsSocket: l.devtoolsSocket });
  const wallMs = performance.now() - t0;
  const cpu = cpuOfTree(b.pid);
  samples.get(name)!.push({ wallMs, cpuMs: cpu.totalMs, byKind: cpu.byKind });
  await stopChromium(b);
  return `${name} ${wallMs.toFixed(0)}ms cpu ${cpu.totalMs.toFixed(0)}ms`;
}

/** Raw Chromium's flags (root: --no-sandbox) with its own profile and TMPDIR under `dir`. */
function rawLaunch(dir: string, profile: string): { args: string[]; env: NodeJS.ProcessEnv } {
  return {
    args: chromiumArgs({ userDataDir: path.join(dir, profile), headless: true, viewport, runningAsRoot: root }),
    env: { ...process.env, TMPDIR: path.join(dir, 'tmp') },
  };
}

/** Raw Chromium under bwrap with the host's filesystem, network and /dev shared; `userns` adds only a user namespace. */
function underBwrap(dir: string, profile: string, userns: boolean): Launch {
  const raw = rawLaunch(dir, profile);
  const ns = userns ? ['--unshare-user'] : [];
  return {
    executable: bwrap,
    args: ['--bind', '/', '/', '--proc', '/proc', '--dev-bind', '/dev', '/dev', ...ns, '--die-with-parent', '--', executable!, ...raw.args],
    env: raw.env,
  };
}

/** `l` started through `prefix` (a command that execs the rest). */
function through(prefix: string[], l: Launch): Launch {
  return { ...l, executable: prefix[0], args: [...prefix.slice(1), l.executable, ...l.args] };
}

/**
 * Chromium with its own sandbox on, as an unprivileged user (nobody) and in no user namespace of
 * ours (bwrap as root: a new PID namespace only), with or without CAP_SYS_NICE as its one
 * capability. Root only. Beside `raw, no CAP_SYS_NICE` (sandbox off) this splits what a jailed
 * browser pays into its own sandbox and the thread priorities it may not set in a user namespace.
 */
function sandboxedAsNobody(dir: string, profile: string, sysNice: boolean): Launch {
  const userData = path.join(dir, profile);
  for (const d of [dir, path.join(dir, 'tmp')]) fs.chmodSync(d, 0o777);
  fs.mkdirSync(userData);
  fs.chmodSync(userData, 0o777);
  const caps = sysNice
    ? ['--inh-caps=-all,+sys_nice', '--ambient-caps=+sys_nice', '--bounding-set=-all,+sys_nice']
    : ['--inh-caps=-all', '--bounding-set=-all'];
  const setpriv = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...caps, '--'];
  const args = chromiumArgs({ userDataDir: userData, headless: true, viewport, runningAsRoot: false });
  return {
    executable: bwrap,
    args: ['--bind', '/', '/', '--proc', '/proc', '--dev-bind', '/dev', '/dev', '--unshare-pid', '--die-with-parent', '--', ...setpriv, executable!, ...args],
    env: { ...process.env, TMPDIR: path.join(dir, 'tmp'), HOME: path.join(dir, 'tmp') },
  };
}

async function jailLaunch(dir: string, sandbox: boolean): Promise<Launch> {
  const args = chromiumArgs({ userDataDir: JAIL_USER_DATA, headless: true, viewport, jailArgs: jailChromiumArgs() });
  if (!sandbox) args.unshift('--no-sandbox');
  await fsp.rm(path.join(dir, 'sock', 'devtools.sock'), { force: true });
  // Every launch starts from an empty profile and home, as a new session does.
  for (const d of ['ud', 'root']) await fsp.rm(path.join(dir, d), { recursive: true, force: true });
  await fsp.mkdir(path.join(dir, 'ud'));
  await prepareJailRoot(path.join(dir, 'root'));
  const cmd = await browserJailCommand({
    bwrap,
    root: path.join(dir, 'root'),
    userData: path.join(dir, 'ud'),
    tmp: path.join(dir, 'tmp'),
    sockDir: path.join(dir, 'sock'),
    egressSocket: path.join(dir, 'egress.sock'),
    hide: [],
    executable: executable!,
    args,
  });
  return { executable: cmd.file, args: cmd.args, env: { PATH: process.env.PATH }, devtoolsSocket: path.join(dir, 'sock', 'devtools.sock') };
}

if (STRACE) await fsp.mkdir(STRACE, { recursive: true });
for (let i = 0; i < ITER; i++) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'jp-'));
  for (const d of ['root', 'ud', 'tmp', 'sock']) await fsp.mkdir(path.join(dir, d));
  const eg = net.createServer(() => {}).listen(path.join(dir, 'egress.sock'));
  const out: string[] = [];
  for (const name of VARIANTS) {
    // A fresh profile per launch, as every session has.
    const profile = `ud-${name.replace(/\W+/g, '-')}`;
    const raw = { executable, ...rawLaunch(dir, profile) };
    const launch: Record<string, () => Promise<Launch>> = {
      raw: async () => raw,
      // Root without the capability to raise a priority: what Chromium meets in a user namespace.
      'raw, no CAP_SYS_NICE': async () => through(['setpriv', '--bounding-set=-sys_nice', '--'], raw),
      'bwrap (no userns)': async () => underBwrap(dir, profile, false),
      'userns only': async () => underBwrap(dir, profile, true),
      'userns + RLIMIT_NICE': async () => through(NICE_RLIMIT, underBwrap(dir, profile, true)),
      jail: () => jailLaunch(dir, true),
      'jail+nosandbox': () => jailLaunch(dir, false),
      'sandbox, uid, CAP_SYS_NICE': async () => sandboxedAsNobody(dir, profile, true),
      'sandbox, uid': async () => sandboxedAsNobody(dir, profile, false),
    };
    out.push(await measure(name, i, await launch[name]()));
  }
  console.log(out.join(' | '));
  eg.close();
  await fsp.rm(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rawWall = median(samples.get('raw')?.map((s) => s.wallMs) ?? [NaN]);
const rawCpu = median(samples.get('raw')?.map((s) => s.cpuMs) ?? [NaN]);
for (const [name, xs] of samples) {
  const wall = median(xs.map((s) => s.wallMs));
  const cpu = median(xs.map((s) => s.cpuMs));
  console.log(
    `${name.padEnd(26)} wall p50 ${wall.toFixed(0).padStart(5)} ms ×raw ${(wall / rawWall).toFixed(2)}   cpu p50 ${cpu.toFixed(0).padStart(5)} ms ×raw ${(cpu / rawCpu).toFixed(2)}`,
  );
}
// Where the CPU went, per kind of process (mean over the rounds).
console.log('\nCPU to ready by process kind, mean ms (processes):');
for (const [name, xs] of samples) {
  const kinds = new Map<string, { ms: number; n: number }>();
  for (const s of xs)
    for (const [k, v] of s.byKind) {
      const e = kinds.get(k) ?? { ms: 0, n: 0 };
      e.ms += v.ms / xs.length;
      e.n += v.n / xs.length;
      kinds.set(k, e);
    }
  const parts = [...kinds].sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => `${k} ${v.ms.toFixed(0)} (${v.n.toFixed(1)})`);
  console.log(`${name.padEnd(26)} ${parts.join(', ')}`);
}
