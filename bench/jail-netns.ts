/**
 * Which network namespace holds back a jailed page's first request: the browser jail's own
 * command line (`browserJailCommand`, with Chromium's flags from `chromiumArgs`), run by hand —
 * the engine not involved — in one namespace variant, 8 launches (N=… to change). Each is
 * connected with Playwright through the jail's DevTools door and loads a local page through a
 * plain proxy on the jail's egress socket. Prints the document's `requestStart` (Navigation
 * Timing, ms after the navigation began) and `navigator.onLine`. Root only (bwrap, `ip netns`).
 * docs/bench/results.md, 2026-12-03 15:00.
 *
 *   npx tsx bench/jail-netns.ts [offline|online] [--netns=NAME]
 *
 * `offline` (default): bwrap's own namespace, only `lo` (the jail before online-netns.ts);
 * `online`: the engine's online namespace (online-netns.ts); `--netns=NAME` (with `offline`'s
 * flags but bwrap's `--share-net`): inside `ip netns` NAME, e.g. one with a veth without an address.
 * The jail's doors use fixed ports, so a variant sharing the host's network cannot run here.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serveHelloPage } from './hello-browser.js';
import { startForwardProxy } from './forward-proxy.js';
import { p50 } from './stats.js';
import { browserJailCommand, jailChromiumArgs, JAIL_USER_DATA, prepareJailRoot } from '../src/engine/runtime/sandbox/browser-jail.js';
import { INBOUND_SOCKET_NAME } from '../src/engine/runtime/sandbox/jail-helper-launch.js';
import { findBwrap } from '../src/engine/runtime/sandbox/bwrap.js';
import { inOnlineNetns, onlineNetnsAvailable } from '../src/engine/runtime/sandbox/online-netns.js';
import { chromiumArgs } from '../src/engine/runtime/chromium/chromium-flags.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLINE = process.argv.includes('online');
const NETNS = arg('netns');
const N = Number(process.env.N ?? 8);

const bwrap = findBwrap();
if (!bwrap || process.getuid?.() !== 0) throw new Error('run as root, with bubblewrap installed');
if (ONLINE && !(await onlineNetnsAvailable())) throw new Error('no online namespace here (online-netns.ts probe failed)');
const page = await serveHelloPage();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-jail-netns-'));
const proxy = await startForwardProxy({ path: path.join(dir, 'egress.sock') });

/** One launch: resolves the page's request start and online state. */
async function once(): Promise<{ requestStart: number; online: boolean }> {
  const d = fs.mkdtempSync(path.join(dir, 'run-'));
  for (const sub of ['root', 'user-data', 'tmp', 'sock']) fs.mkdirSync(path.join(d, sub));
  await prepareJailRoot(path.join(d, 'root'));
  const jailed = await browserJailCommand({
    bwrap: bwrap!,
    root: path.join(d, 'root'),
    userData: path.join(d, 'user-data'),
    tmp: path.join(d, 'tmp'),
    sockDir: path.join(d, 'sock'),
    egressSocket: path.join(dir, 'egress.sock'),
    hide: [],
    executable: '/usr/bin/chromium',
    args: chromiumArgs({ userDataDir: JAIL_USER_DATA, headless: true, viewport: { width: 1280, height: 800 }, jailArgs: jailChromiumArgs() }),
    sharedNet: ONLINE || !!NETNS,
  });
  const cmd = ONLINE ? inOnlineNetns(jailed) : NETNS ? { file: 'ip', args: ['netns', 'exec', NETNS, jailed.file, ...jailed.args] } : jailed;
  const child = spawn(cmd.file, cmd.args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  try {
    await new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => (err += c) && err.includes('browserdeck-jail: ready') && resolve());
      child.on('exit', () => reject(new Error(`the jail ended: ${err.slice(-2000)}`)));
    });
    // Chromium's DevTools answers through the inbound door once it listens.
    const door = path.join(d, 'sock', INBOUND_SOCKET_NAME);
    const fwd = net.createServer((c) => {
      const u = net.connect(door);
      c.pipe(u).pipe(c);
      c.on('error', () => u.destroy());
      u.on('error', () => c.destroy());
    });
    await new Promise<void>((r) => fwd.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(fwd.address() as net.AddressInfo).port}`;
    let browser;
    for (let i = 0; !browser; i++)
      browser = await chromium.connectOverCDP(endpoint).catch((e) => (i > 200 ? Promise.reject(e) : new Promise<undefined>((r) => setTimeout(r, 25))));
    const tab = browser.contexts()[0].pages()[0];
    await tab.goto(page.url);
    const r = await tab.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { requestStart: n.requestStart - n.startTime, online: navigator.onLine };
    });
    await browser.close().catch(() => {});
    fwd.close();
    return r;
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    fs.rmSync(d, { recursive: true, force: true });
  }
}

const runs: Array<{ requestStart: number; online: boolean }> = [];
try {
  for (let i = 0; i < N; i++) runs.push(await once());
} finally {
  proxy.close();
  page.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(
  `${process.argv.slice(2).join(' ') || 'offline'}: requestStart p50 ${p50(runs.map((r) => r.requestStart)).toFixed(1)} ms`,
  `[${runs.map((r) => Math.round(r.requestStart)).join(', ')}], navigator.onLine ${[...new Set(runs.map((r) => r.online))].join('/')}`,
);
