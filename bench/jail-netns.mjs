/**
 * Which namespace of the browser jail holds back a page's first request: Chromium run by hand
 * under bwrap with the browser jail's command line (its flags, binds, uid and socat doors; the
 * engine not involved), 8 launches, each connected with Playwright through the DevTools door and
 * sent to a local page through a plain proxy on the egress socket. Prints the document's
 * `requestStart` (Navigation Timing, ms after the navigation began) and `navigator.onLine`.
 * Root only (bwrap as root, `ip netns`). docs/bench/results.md, 2026-12-03 15:00.
 *
 *   node bench/jail-netns.mjs <label> [--ns=--unshare-all[,--share-net|...]] [--netns=NAME] [--nosb] [--headful] [--fake-origin]
 *
 * `--ns`: the bwrap namespace flags (default `--unshare-all`, as the jail before online-netns.ts);
 * `--netns=NAME`: start bwrap inside `ip netns` NAME (e.g. one with a veth holding an address);
 * `--nosb`: Chromium's own sandbox off; `--fake-origin`: a listener on the page's port inside the
 * namespace too. N=<launches> in the environment changes the count.
 */
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
const hello = http.createServer((q, r) => {
  r.setHeader('content-type', 'text/html');
  r.end('<title>hi</title><p>hello');
});
await new Promise((r) => hello.listen(0, '127.0.0.1', r));
const proxy = http.createServer((q, r) => {
  const u = new URL(q.url);
  const up = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: q.method, headers: q.headers }, (ur) => {
    r.writeHead(ur.statusCode, ur.headers);
    ur.pipe(r);
  });
  up.on('error', () => r.destroy());
  q.pipe(up);
});
proxy.on('connect', (q, sock) => {
  sock.destroy();
});
const J = path.join(os.tmpdir(), 'bd-jail-netns');
fs.rmSync(J, { recursive: true, force: true });
for (const d of ['root', 'user-data', 'tmp', 'jail']) fs.mkdirSync(`${J}/${d}`, { recursive: true, mode: 0o777 });
await new Promise((r) => proxy.listen(`${J}/egress.sock`, r));
const headless = !process.argv.includes('--headful');
const NS = (process.argv.find((a) => a.startsWith('--ns='))?.slice(5) ?? '--unshare-all').split(',');
const SHARED = !NS.includes('--unshare-net') && !(NS.includes('--unshare-all') && !NS.includes('--share-net'));
const PP = SHARED ? 20000 + Math.floor(Math.random() * 20000) : 3128;
const DP = PP + 1;
const flags = `--remote-debugging-port=${DP} --proxy-server=http://127.0.0.1:${PP} '--proxy-bypass-list=<-loopback>' --webrtc-ip-handling-policy=disable_non_proxied_udp --disable-quic --user-data-dir=/run/browserdeck/user-data --no-first-run --no-default-browser-check --disable-background-networking --disable-component-update --disable-sync --disable-default-apps --disable-breakpad --disable-crash-reporter --disable-domain-reliability --metrics-recording-only --password-store=basic --use-mock-keychain --disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup --enable-features=NetworkServiceInProcess2,WebMCP --disable-crashpad-for-testing --enable-aggressive-domstorage-flushing --window-size=1920,1167 --window-position=0,0 ${headless ? "--headless=new '--screen-info={1920x1080}'" : ''} --disable-gpu ${process.argv.includes('--nosb') ? '--no-sandbox' : ''} about:blank`;
const FAKE = process.argv.includes('--fake-origin')
  ? `socat TCP4-LISTEN:${hello.address().port},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:/run/browserdeck/egress.sock & `
  : '';
const inner =
  FAKE +
  `socat TCP4-LISTEN:${PP},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:/run/browserdeck/egress.sock & socat UNIX-LISTEN:/run/browserdeck/sock/devtools.sock,fork TCP4:127.0.0.1:${DP} & exec /usr/lib/chromium/chromium ${flags}`;
const res = [];
const N = Number(process.env.N ?? 8);
const log = (...a) => process.env.V && console.log(...a);
for (let i = 0; i < N; i++) {
  fs.rmSync(`${J}/user-data`, { recursive: true, force: true });
  fs.mkdirSync(`${J}/user-data`, { mode: 0o777 });
  fs.rmSync(`${J}/jail/devtools.sock`, { force: true });
  const VETH = process.argv.includes('--veth');
  const args = [
    ...NS,
    ...(VETH ? ['--cap-add', 'CAP_NET_ADMIN'] : []),
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--bind',
    `${J}/root`,
    '/',
    '--ro-bind',
    '/usr',
    '/usr',
    '--ro-bind',
    '/bin',
    '/bin',
    '--ro-bind',
    '/sbin',
    '/sbin',
    '--ro-bind',
    '/lib',
    '/lib',
    '--ro-bind',
    '/lib64',
    '/lib64',
    '--ro-bind',
    '/etc',
    '/etc',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/run/browserdeck',
    '--new-session',
    '--uid',
    '1000',
    '--gid',
    '1000',
    '--tmpfs',
    '/dev/shm',
    '--ro-bind-try',
    '/var/cache/fontconfig',
    '/var/cache/fontconfig',
    '--bind',
    `${J}/user-data`,
    '/run/browserdeck/user-data',
    '--bind',
    `${J}/tmp`,
    '/run/browserdeck/tmp',
    '--bind',
    `${J}/jail`,
    '/run/browserdeck/sock',
    '--ro-bind',
    `${J}/egress.sock`,
    '/run/browserdeck/egress.sock',
    '--chdir',
    '/',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    '/home/kernel',
    '--setenv',
    'TMPDIR',
    '/run/browserdeck/tmp',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--',
    '/bin/sh',
    '-c',
    VETH
      ? `ip link add bd0 type veth peer name bd1 && ip addr add 10.255.255.1/32 dev bd0 && ip link set bd1 up && ip link set bd0 up && exec setpriv --inh-caps=-all --ambient-caps=-all /bin/sh -c ${JSON.stringify('grep Cap /proc/self/status >&2; ' + inner)}`
      : inner,
  ];
  const NETNS = process.argv.find((a) => a.startsWith('--netns='))?.slice(8);
  const child = NETNS
    ? spawn('ip', ['netns', 'exec', NETNS, 'bwrap', ...args], { stdio: ['ignore', 'ignore', 'pipe'], detached: true })
    : spawn('bwrap', args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const door = `${J}/jail/devtools.sock`;
  let ws;
  for (let k = 0; k < 400 && !ws; k++) {
    await new Promise((r) => setTimeout(r, 25));
    if (!fs.existsSync(door)) continue;
    ws = await new Promise((resolve) => {
      const s = net.connect(door, () => s.write('GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      let buf = '';
      s.on('data', (d) => {
        buf += d;
        if (buf.includes('webSocketDebuggerUrl')) s.destroy();
      });
      setTimeout(() => s.destroy(), 300);
      s.on('error', () => resolve(undefined));
      s.on('close', () => {
        const m = /"webSocketDebuggerUrl": "ws:\/\/[^/]+(\/[^"]+)"/.exec(buf);
        resolve(m?.[1]);
      });
    });
  }
  if (!ws) {
    console.log(
      'no ws',
      err
        .split('\n')
        .filter((l) => !l.includes('socat') && !l.includes('dbus'))
        .join('\n')
        .slice(0, 3000),
    );
    process.exit(1);
  }
  const fwd = net.createServer((c) => {
    const u = net.connect(door);
    c.pipe(u);
    u.pipe(c);
    c.on('error', () => u.destroy());
    u.on('error', () => c.destroy());
  });
  await new Promise((r) => fwd.listen(0, '127.0.0.1', r));
  log('ws', ws);
  const b = await chromium.connectOverCDP(`ws://127.0.0.1:${fwd.address().port}${ws}`);
  const p = b.contexts()[0].pages()[0];
  log('connected');
  const t0 = performance.now();
  await p.goto(`http://127.0.0.1:${hello.address().port}/`);
  const goto = performance.now() - t0;
  const nav = await p.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return { req: n.requestStart - n.startTime, resp: n.responseStart - n.startTime, online: navigator.onLine };
  });
  if (i === 0) console.log('navigator.onLine', nav.online);
  res.push({ goto: Math.round(goto), req: Math.round(nav.req), resp: Math.round(nav.resp) });
  await b.close().catch(() => {});
  process.kill(-child.pid, 'SIGKILL');
  fwd.close();
  await new Promise((r) => setTimeout(r, 200));
}
const med = (k) => res.map((x) => x[k]).sort((a, b) => a - b)[4];
console.log(
  process.argv.slice(2).join(' '),
  'p50 goto',
  med('goto'),
  'requestStart',
  med('req'),
  'responseStart',
  med('resp'),
  JSON.stringify(res.map((r) => r.req)),
);
hello.close();
proxy.close();
fs.rmSync(J, { recursive: true, force: true });
