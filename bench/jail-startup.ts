/**
 * `npm run bench:jail`: where a jailed browser's start-up time goes, beside raw Chromium in the
 * same run. Three launches per round, interleaved: raw Chromium on the host (`--no-sandbox` as
 * root, as the floor), the browser jail with Chromium's own sandbox on (what sessions use), and
 * the jail with `--no-sandbox` (the jail's own cost: bwrap, mounts, the jail helper), and raw
 * Chromium under bwrap with only a new user namespace (what that alone costs). Prints
 * medians of launch → `Browser.getVersion` and of the "DevTools listening" line, as ratios to raw.
 * Env: BENCH_ITERATIONS (default 8).
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { launchChromium, stopChromium } from '../src/engine/runtime/chromium/launch-chromium.js';
import { chromiumArgs } from '../src/engine/runtime/chromium/chromium-flags.js';
import { browserJailCommand, jailChromiumArgs, JAIL_USER_DATA, prepareJailRoot } from '../src/engine/runtime/sandbox/browser-jail.js';
import { usableBwrap } from '../src/engine/runtime/sandbox/bwrap.js';
import { findChromium } from '../src/engine/runtime/chromium/find-chromium.js';
import net from 'node:net';
const bwrap = (await usableBwrap())!;
// The same executable sessions use (the Debian wrapper script would add its own start-up).
const executable = findChromium();
if (!executable) throw new Error('no Chromium found');
const ITER = Number(process.env.BENCH_ITERATIONS ?? 8);
const times: Record<string, number[]> = { raw: [], jail: [], 'jail+nosandbox': [], 'userns only': [] };
for (let i = 0; i < ITER; i++) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'jp-'));
  for (const d of ['root', 'ud', 'tmp', 'sock']) await fsp.mkdir(path.join(dir, d));
  await prepareJailRoot(path.join(dir, 'root'));
  const eg = net.createServer(() => {}).listen(path.join(dir, 'egress.sock'));
  const base = { userDataDir: JAIL_USER_DATA, headless: true, viewport: { width: 1920, height: 1080 } };
  const variants: Record<string, string[]> = { jail: jailChromiumArgs(), 'jail+nosandbox': jailChromiumArgs() };
  const out: string[] = [];
  for (const [name, ja] of Object.entries(variants)) {
    const args = chromiumArgs({ ...base, jailArgs: ja });
    if (name.includes('nosandbox')) args.unshift('--no-sandbox');
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
      executable,
      args,
    });
    const t0 = performance.now();
    let tLine = 0;
    const b = await launchChromium({
      executable: cmd.file,
      args: cmd.args,
      env: { PATH: process.env.PATH },
      devtoolsSocket: path.join(dir, 'sock', 'devtools.sock'),
      onOutput: (c) => {
        if (c.includes('DevTools listening') && !tLine) tLine = performance.now() - t0;
      },
    });
    times[name].push(performance.now() - t0);
    out.push(`${name} ${(performance.now() - t0).toFixed(0)}ms (devtools line ${tLine.toFixed(0)})`);
    await stopChromium(b);
  }
  const t1 = performance.now();
  const b = await launchChromium({
    executable,
    args: chromiumArgs({
      userDataDir: path.join(dir, 'ud2'),
      headless: true,
      viewport: { width: 1920, height: 1080 },
      runningAsRoot: process.getuid?.() === 0,
    }),
    env: { ...process.env, TMPDIR: path.join(dir, 'tmp') },
  });
  times.raw.push(performance.now() - t1);
  out.push(`raw ${(performance.now() - t1).toFixed(0)}ms`);
  await stopChromium(b);
  // Raw Chromium under bwrap with nothing but a new user namespace (the host's filesystem,
  // network and /dev shared): what the user namespace alone costs a start.
  const t2 = performance.now();
  const u = await launchChromium({
    executable: bwrap,
    args: [
      '--bind',
      '/',
      '/',
      '--proc',
      '/proc',
      '--dev-bind',
      '/dev',
      '/dev',
      '--unshare-user',
      '--die-with-parent',
      '--',
      executable,
      ...chromiumArgs({ userDataDir: path.join(dir, 'ud3'), headless: true, viewport: { width: 1920, height: 1080 }, runningAsRoot: process.getuid?.() === 0 }),
    ],
    env: { ...process.env, TMPDIR: path.join(dir, 'tmp') },
  });
  times['userns only'].push(performance.now() - t2);
  out.push(`userns only ${(performance.now() - t2).toFixed(0)}ms`);
  await stopChromium(u);
  console.log(out.join(' | '));
  eg.close();
  await fsp.rm(dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = median(times.raw);
for (const [name, xs] of Object.entries(times))
  console.log(`${name.padEnd(16)} p50 ${median(xs).toFixed(0).padStart(5)} ms  ×raw ${(median(xs) / floor).toFixed(2)}`);
