/**
 * The host side of one app process's network (app-jail.ts): the jail has its own network
 * namespace (only `lo`), and the helper inside (sandbox/app-jail-helper.mjs) pipes its two
 * loopback ports to the two Unix sockets opened here, each bound read-only into the jail as a
 * single file:
 *  - `egress.sock`: an egress proxy of its own (local-forwarder.ts) with the engine's egress
 *    policy — names resolved by the engine, the resolved address checked and then connected
 *    to, refusals answered with `x-browserdeck-net-error` / `X-Kernel-Proxy-Error` — exactly
 *    what a browser's traffic goes through;
 *  - `engine.sock`: the engine's public URL as the host sees it. Apps must reach KERNEL_BASE_URL
 *    and their sessions' CDP URLs (Playwright's WebSocket connects directly, never through a
 *    proxy), which name that address; inside, the helper listens on the same loopback address
 *    and port when it can (a loopback public URL on an unprivileged port); otherwise on a free
 *    loopback port that the app runner redirects the public address to (`engineDoorOf`).
 * The sockets sit in a private 0700 temp dir (short enough for a socket path) that the jail
 * never sees as a directory. `close` ends both servers with their connections and removes it;
 * the app process's owner calls it when the process has ended (engine stop ends them first).
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SANDBOX_DIR } from '../sandbox/bwrap.js';
import { splice } from '../sandbox/cdp-forwarder.mjs';
import type { EgressPolicy } from '../proxy-forwarder/egress-policy.js';
import { startLocalForwarder, type LocalForwarder } from '../proxy-forwarder/local-forwarder.js';

const JAIL_EGRESS_SOCKET = `${SANDBOX_DIR}/egress.sock`;
const JAIL_ENGINE_SOCKET = `${SANDBOX_DIR}/engine.sock`;
/** Below this a process without CAP_NET_BIND_SERVICE cannot listen, in the jail's namespace too. */
const FIRST_UNPRIVILEGED_PORT = 1024;

/** What the in-jail helper is told (app-jail-helper.mjs). */
export interface AppHelperSpec {
  egressSocket: string;
  engine?: { socket: string; port: number; listen: Array<{ host: string; required: boolean }>; redirect?: string };
  /** NO_PROXY: the engine's address, reached through `engine` rather than the proxy. */
  noProxy: string;
  channelFd?: number;
}

export interface AppNetwork {
  /** bwrap arguments binding the sockets into the jail. */
  readonly binds: string[];
  readonly spec: AppHelperSpec;
  close(): Promise<void>;
}

/**
 * How the jail serves the engine's public URL: the loopback addresses to listen on, the
 * NO_PROXY entries naming it, and — for a public URL the jail cannot listen on itself (another
 * machine's address or name, or a port below 1024, as behind a TLS front end) — `redirect`:
 * the door then listens on a free 127.0.0.1 port and the app runner sends connections for the
 * public `host:port` there (app-runner-child.mjs), TLS and SNI unchanged end to end.
 */
export function engineDoorOf(publicUrl: string): {
  host: string;
  port: number;
  listen: Array<{ host: string; required: boolean }>;
  noProxy: string[];
  redirect?: string;
} {
  const u = new URL(publicUrl);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const entries = (hosts: string[]) => hosts.map((h) => `${net.isIPv6(h) ? `[${h}]` : h}:${port}`);
  if (port >= FIRST_UNPRIVILEGED_PORT) {
    if (host === 'localhost')
      return {
        host,
        port,
        listen: [
          { host: '127.0.0.1', required: true },
          { host: '::1', required: false },
        ],
        noProxy: entries(['localhost', '127.0.0.1', '::1']),
      };
    if (net.isIPv4(host) && host.startsWith('127.')) return { host, port, listen: [{ host, required: true }], noProxy: entries([host]) };
    if (host === '::1') return { host, port, listen: [{ host, required: true }], noProxy: entries([host]) };
  }
  return {
    host,
    port,
    listen: [{ host: '127.0.0.1', required: true }],
    noProxy: entries([host]),
    redirect: `${net.isIPv6(host) ? `[${host}]` : host}:${port}`,
  };
}

/** Pipes every connection of a Unix socket to `host:port` on the host; destroys them all at close. */
async function listenEngineDoor(socketPath: string, target: { host: string; port: number }): Promise<() => Promise<void>> {
  const conns = new Set<net.Socket>();
  const track = (s: net.Socket): void => {
    conns.add(s);
    s.once('close', () => conns.delete(s));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.host, port: target.port, autoSelectFamily: true });
    track(client);
    track(upstream);
    splice(client, upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  server.on('error', () => {});
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const c of conns) c.destroy();
    });
}

export async function openAppNetwork(o: { policy: EgressPolicy; publicUrl: string }): Promise<AppNetwork> {
  const tmp = os.tmpdir();
  const dir = await fs.mkdtemp(path.join(tmp.length <= 48 ? tmp : '/tmp', 'bd-app-'));
  const egressSocket = path.join(dir, 'egress.sock');
  const engineSocket = path.join(dir, 'engine.sock');
  let egress: LocalForwarder | undefined;
  let closeDoor: (() => Promise<void>) | undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await Promise.all([egress?.close(), closeDoor?.()]);
      await fs.rm(dir, { recursive: true, force: true });
    })());
  try {
    egress = await startLocalForwarder({ upstream: null, bypass: [] }, { policy: o.policy, tcp: false });
    await egress.listenUnix(egressSocket);
    const binds = ['--ro-bind', egressSocket, JAIL_EGRESS_SOCKET];
    const door = engineDoorOf(o.publicUrl);
    closeDoor = await listenEngineDoor(engineSocket, door);
    binds.push('--ro-bind', engineSocket, JAIL_ENGINE_SOCKET);
    const spec: AppHelperSpec = {
      egressSocket: JAIL_EGRESS_SOCKET,
      engine: { socket: JAIL_ENGINE_SOCKET, port: door.redirect ? 0 : door.port, listen: door.listen, redirect: door.redirect },
      noProxy: door.noProxy.join(','),
    };
    return { binds, spec, close };
  } catch (err) {
    await close();
    throw err;
  }
}
