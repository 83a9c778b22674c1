/**
 * Issue 25 row 10: a session's page may not reach this host's own non-loopback addresses — where
 * every service bound to `0.0.0.0`/`::` answers, the engine itself with `--host 0.0.0.0`
 * included — unless the operator allows this host (`--egress-allow-loopback`).
 *
 * Only inside a network namespace this test creates: its "host" has `lo` and one end of a veth
 * pair with test addresses (10.213.0.2/24, fd00:213::2/64; the other end, 10.213.0.1/24, stays
 * outside so this test process can reach the engines). Two engine CLIs run in it (`ip netns exec`,
 * as `npm run serve` starts the CLI) on `--host 0.0.0.0`: one with the default, one with
 * `--egress-allow-loopback`; beside them a probe server bound to `0.0.0.0` and `::` counts every
 * connection. The default engine's pages get the forwarder's 403 (`/curl`: ERR_NETWORK_ACCESS_DENIED)
 * for the namespace's own addresses — v4, v6, IPv4-mapped, and the engine's own port — and the
 * probe sees no connection; the same engine still loads a page outside the namespace (the veth's
 * far end). The allowing engine reaches all of them. No traffic goes to this machine's real
 * interfaces. Before, the default engine's pages loaded them all.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploy } from '../apps/app-helpers.js';
import { engineEntry } from '../../helpers/engine-bundle.js';

const root = path.resolve(import.meta.dirname, '../../..');
const NS = `bd-hostaddr-${process.pid}`;
const VETH_OUT = `bdha${process.pid % 100000}o`;
const VETH_IN = `bdha${process.pid % 100000}i`;
const OUTSIDE = '10.213.0.1';
const INSIDE = '10.213.0.2';
const INSIDE6 = 'fd00:213::2';

const ip = (...args: string[]): string => execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Whether this machine lets the test make a network namespace (root with `ip netns`), else why not. */
function netnsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: `ip netns add` needs CAP_SYS_ADMIN';
  const probe = `${NS}-probe`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return undefined;
  } catch (err) {
    return `\`ip netns add\` fails here: ${(err as Error).message}`;
  }
}
const unavailable = netnsUnavailable();
if (unavailable) console.warn(`\n*** SKIPPING the host-address egress traffic test: ${unavailable} ***\n`);

interface NsEngine {
  proc: ChildProcess;
  /** Where this test (outside the namespace) reaches it, over the veth. */
  url: string;
  port: number;
  client: Kernel;
  dataDir: string;
}

const children: ChildProcess[] = [];
const dataDirs: string[] = [];

/** Runs `argv` inside the namespace; resolves with the first stdout match of `ready`. */
function inNamespace(
  argv: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ proc: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const proc = spawn('ip', ['netns', 'exec', NS, ...argv], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = ready.exec(out);
      if (m) resolve({ proc, match: m, output: () => out });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code, signal) => reject(new Error(`${argv.join(' ')} exited (${code ?? signal}) before it was ready:\n${out}`)));
  });
}

/** The engine CLI in the namespace on 0.0.0.0; `allowThisHost` adds `--egress-allow-loopback`. */
async function startNsEngine(allowThisHost: boolean, port: number): Promise<NsEngine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-hostaddr-'));
  dataDirs.push(dataDir);
  // As an operator starts it: the variable unset, so only the flag decides.
  const { BROWSERDECK_EGRESS_ALLOW_LOOPBACK: _unset, ...env } = process.env;
  // Its public URL is the veth address, which session URLs (cdp_ws_url, the SDK's browser routes) name.
  const url = `http://${INSIDE}:${port}`;
  const args = ['--host', '0.0.0.0', '--port', String(port), '--public-url', url, '--data-dir', dataDir, '--standby', '0', '--freeze-idle-seconds', '0'];
  if (allowThisHost) args.push('--egress-allow-loopback');
  const { proc } = await inNamespace([process.execPath, await engineEntry(), ...args], /Browserdeck listening on /, {
    ...env,
    BROWSERDECK_LOG_LEVEL: 'warn',
  });
  const adminKey = fs.readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim();
  return { proc, url, port, dataDir, client: new Kernel({ apiKey: adminKey, baseURL: url, maxRetries: 0 }) };
}

/** The probe in the namespace: one HTTP server on 0.0.0.0 and [::] (one port), printing each connection it accepts. */
const PROBE = `
const http = require('node:http');
const serve = (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>a host service on 0.0.0.0</title>');
const v4 = http.createServer(serve);
const v6 = http.createServer(serve);
for (const s of [v4, v6]) s.on('connection', () => console.log('connection'));
v4.listen(0, '0.0.0.0', () => v6.listen({ port: v4.address().port, host: '::', ipv6Only: true }, () => console.log('listening ' + v4.address().port)));
`;

let strict: NsEngine;
let open: NsEngine;
let probe: { port: number; connections: () => number };
/** A page outside the namespace (on the veth's far end): the default engine's pages still load it. */
const outside = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>outside the namespace</title>'));
let outsideUrl = '';

beforeAll(async () => {
  if (unavailable) return;
  ip('netns', 'add', NS);
  ip('link', 'add', VETH_OUT, 'type', 'veth', 'peer', 'name', VETH_IN);
  ip('link', 'set', VETH_IN, 'netns', NS);
  ip('addr', 'add', `${OUTSIDE}/24`, 'dev', VETH_OUT);
  ip('link', 'set', VETH_OUT, 'up');
  ip('-n', NS, 'link', 'set', 'lo', 'up');
  ip('-n', NS, 'addr', 'add', `${INSIDE}/24`, 'dev', VETH_IN);
  ip('-n', NS, '-6', 'addr', 'add', `${INSIDE6}/64`, 'dev', VETH_IN, 'nodad');
  ip('-n', NS, 'link', 'set', VETH_IN, 'up');
  await new Promise<void>((resolve, reject) => {
    outside.once('error', reject);
    outside.listen(0, OUTSIDE, () => resolve());
  });
  outsideUrl = `http://${OUTSIDE}:${(outside.address() as { port: number }).port}/`;
  const p = await inNamespace([process.execPath, '-e', PROBE], /listening (\d+)/);
  probe = {
    port: Number(p.match[1]),
    connections: () =>
      p
        .output()
        .split('\n')
        .filter((l) => l === 'connection').length,
  };
  // Fixed ports: the namespace is new, and these lie below the ephemeral range the probe's port came from.
  [strict, open] = await Promise.all([startNsEngine(false, 18420), startNsEngine(true, 18421)]);
  // Two engine CLIs starting at once on a loaded 2-core machine.
}, 300_000);

afterAll(async () => {
  // Also after a failed start: every child ends, then the namespace (and with it both veth ends) goes.
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const kill = setTimeout(() => c.kill('SIGKILL'), 20_000);
          c.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
  outside.closeAllConnections();
  await new Promise((r) => outside.close(r));
  if (!unavailable) {
    try {
      ip('netns', 'del', NS);
    } catch {}
    try {
      ip('link', 'del', VETH_OUT);
    } catch {}
  }
  for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The namespace's own addresses as a page would write them, each with the port of a service on 0.0.0.0/[::]. */
const hostTargets = (engine: NsEngine): Array<[string, string]> => [
  ['the probe on the IPv4 address', `http://${INSIDE}:${probe.port}/`],
  ['the probe on the IPv6 address', `http://[${INSIDE6}]:${probe.port}/`],
  ['the probe on the IPv4-mapped address', `http://[::ffff:${INSIDE}]:${probe.port}/`],
  ['the engine itself', `http://${INSIDE}:${engine.port}/healthz`],
];

async function withSession<T>(engine: NsEngine, fn: (id: string, page: import('playwright-core').Page) => Promise<T>): Promise<T> {
  const s = await engine.client.browsers.create({ headless: true });
  const browser = await chromium.connectOverCDP(s.cdp_ws_url);
  try {
    return await fn(s.session_id, browser.contexts()[0].pages()[0]);
  } finally {
    await browser.close();
    await engine.client.browsers.deleteByID(s.session_id);
  }
}

/** `/curl` through the session's browser: the status, or the error's net_error_name. */
async function curl(engine: NsEngine, id: string, url: string): Promise<{ status?: number; net_error_name?: unknown }> {
  return engine.client.browsers.curl(id, { url }).then(
    (r) => ({ status: r.status }),
    (e: { error?: Record<string, unknown> }) => ({ net_error_name: e.error?.net_error_name ?? String(e) }),
  );
}

const APP = `
import Kernel from '@onkernel/sdk';
const app = new Kernel().app('hostaddr');
app.action('get', async (_ctx, p) => {
  try {
    const r = await fetch(p.url);
    return { status: r.status, netError: r.headers.get('x-browserdeck-net-error') };
  } catch (e) {
    return { error: String(e) };
  }
});
`;

/** An app of `engine` fetching `url` through its egress proxy: the status and net error it saw. */
async function appFetch(engine: NsEngine, url: string): Promise<unknown> {
  const version = `v${Math.random().toString(36).slice(2, 8)}`;
  const { final } = await deploy(engine.client, { 'index.mjs': APP }, { entrypoint: 'index.mjs', version });
  expect(final.status, final.status_reason).toBe('running');
  const inv = await engine.client.invocations.create({ app_name: 'hostaddr', action_name: 'get', version, payload: JSON.stringify({ url }) });
  expect(inv.status, inv.status_reason ?? '').toBe('succeeded');
  return JSON.parse(inv.output!);
}

/** A proxy health check against a "proxy" at the namespace's address (the probe): its status, and whether the probe saw a connection. */
async function proxyCheck(engine: NsEngine): Promise<{ status: string; connected: boolean }> {
  const before = probe.connections();
  const created = await engine.client.proxies.create({ type: 'custom', config: { host: INSIDE, port: probe.port } });
  const checked = await engine.client.proxies.check(created.id!, { url: 'http://example.test/' });
  // The probe prints each connection as it accepts it; a refused check printed none, an allowed one did before answering.
  return { status: checked.status ?? '', connected: probe.connections() > before };
}

describe.skipIf(!!unavailable)("this host's own addresses (in a test network namespace)", () => {
  it('/healthz says what is denied, naming no address', async () => {
    for (const [engine, denied] of [
      [strict, true],
      [open, false],
    ] as const) {
      const body = (await (await fetch(`${engine.url}/healthz`)).json()) as { limits: unknown };
      expect(body.limits).toMatchObject({ egress: { host_addresses_denied: denied, loopback_denied: denied } });
      expect(JSON.stringify(body)).not.toContain(INSIDE);
    }
  });

  it('by default a page cannot load them: 403 naming the flag, /curl ERR_NETWORK_ACCESS_DENIED, nothing reaches the probe; a page outside still loads', async () => {
    const before = probe.connections();
    await withSession(strict, async (id, page) => {
      for (const [what, url] of hostTargets(strict)) {
        const res = await page.goto(url);
        expect(res?.status(), what).toBe(403);
        expect(res?.headers()['x-browserdeck-net-error'], what).toBe('net::ERR_NETWORK_ACCESS_DENIED');
        const text = await res?.text();
        expect(text, what).toContain("denied by the engine's egress policy (this host's own address)");
        expect(text, what).toContain('--egress-allow-loopback');
        expect(await curl(strict, id, url), what).toEqual({ net_error_name: 'net::ERR_NETWORK_ACCESS_DENIED' });
      }
      // Control: the same session reaches what is not this host.
      expect(await curl(strict, id, outsideUrl)).toEqual({ status: 200 });
      const away = await page.goto(outsideUrl);
      expect(away?.status()).toBe(200);
      expect(await page.title()).toBe('outside the namespace');
      // A TLS tunnel (CONNECT) to the host's service is refused too.
      const tls = await page.goto(`https://${INSIDE}:${probe.port}/`).then(
        () => 'loaded',
        (e: Error) => e.message,
      );
      expect(tls).toMatch(/ERR_TUNNEL_CONNECTION_FAILED/);
    });
    expect(probe.connections()).toBe(before);
  });

  it('with --egress-allow-loopback the same pages load', async () => {
    const before = probe.connections();
    await withSession(open, async (id, page) => {
      for (const [what, url] of hostTargets(open)) {
        const res = await page.goto(url);
        expect(res?.status(), what).toBe(200);
        expect(await curl(open, id, url), what).toEqual({ status: 200 });
      }
    });
    expect(probe.connections()).toBeGreaterThan(before);
  });

  it("by default an app's fetch to them is refused by its egress proxy; allowed, it is reached", async () => {
    const url = `http://${INSIDE}:${probe.port}/`;
    const before = probe.connections();
    expect(await appFetch(strict, url)).toEqual({ status: 403, netError: 'net::ERR_NETWORK_ACCESS_DENIED' });
    expect(probe.connections()).toBe(before);
    expect(await appFetch(open, url)).toEqual({ status: 200, netError: null });
    expect(probe.connections()).toBeGreaterThan(before);
  });

  it('by default a proxy check does not connect to a proxy at them; allowed, it does', async () => {
    expect(await proxyCheck(strict)).toEqual({ status: 'unavailable', connected: false });
    const allowed = await proxyCheck(open);
    expect(allowed.connected).toBe(true);
  });
});
