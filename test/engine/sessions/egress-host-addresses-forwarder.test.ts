/**
 * The egress forwarder refuses one of the host's own interface addresses on every way in, as it
 * refuses loopback: plain requests, CONNECT tunnels and WebSocket upgrades, IPv4-mapped spellings,
 * a session's `private_hosts` resolving there, an upstream proxy or a proxy route's proxy at it,
 * and a destination written as that address behind a proxy — nothing connects to it. Allowed
 * (no host addresses), the same requests connect.
 *
 * No traffic leaves loopback: 127.0.0.2 plays the host's interface address (the policy is given
 * the list, as the engine gives it what os.networkInterfaces() answers; the loopback ranges are
 * left out so only that list can refuse it). The real interfaces are exercised only inside a
 * network namespace (egress-host-addresses.test.ts).
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalForwarder, type Route } from '../../../src/engine/runtime/proxy-forwarder/local-forwarder.js';
import { egressPolicy, THIS_HOST_HINT } from '../../../src/engine/runtime/proxy-forwarder/egress-policy.js';
import { hostAddressList } from '../../../src/engine/runtime/proxy-forwarder/host-addresses.js';

const HOST_ADDRESS = '127.0.0.2';
/** A name a session might list in private_hosts, resolving to the host address. */
const NAMES: Record<string, string> = { 'host.test': HOST_ADDRESS };

let server: http.Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end('reached'));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, HOST_ADDRESS, resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** The policy with `hostAddresses` as this host's interfaces (no loopback ranges: only the list can refuse). */
const policyWith = (hostAddresses: string[]) =>
  egressPolicy([], async (h) => NAMES[h] ?? '198.51.100.250', { ranges: [], addresses: hostAddressList(hostAddresses), hint: THIS_HOST_HINT });

async function withForwarder<T>(route: Route, hostAddresses: string[], fn: (fwd: number) => Promise<T>): Promise<T> {
  const f = await startLocalForwarder(route, { policy: policyWith(hostAddresses), connectTimeoutMs: 3000 });
  try {
    return await fn(f.port);
  } finally {
    await f.close();
  }
}

/** One request to the forwarder as Chromium sends it: absolute form, CONNECT, or a WebSocket upgrade; its status and body. */
function viaForwarder(fwd: number, how: 'GET' | 'CONNECT' | 'WS', authority: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: fwd,
      agent: false,
      method: how === 'CONNECT' ? 'CONNECT' : 'GET',
      path: how === 'CONNECT' ? authority : `http://${authority}/`,
      headers: {
        host: authority,
        ...(how === 'WS'
          ? { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' }
          : {}),
      },
    });
    const done = (res: http.IncomingMessage, socket?: net.Socket): void => {
      socket?.destroy();
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      if (socket) resolve({ status: res.statusCode ?? 0, body: '' });
    };
    req.on('response', (res) => done(res));
    req.on('connect', done);
    req.on('upgrade', done);
    req.on('error', reject);
    req.end();
  });
}

describe("the forwarder and the host's own addresses", () => {
  it('refuses the address in every spelling and every way in, naming the flag; allowed, the same requests connect', async () => {
    const direct: Route = { upstream: null, bypass: [] };
    const authorities = [`${HOST_ADDRESS}:${port}`, `[::ffff:${HOST_ADDRESS}]:${port}`, `[::ffff:7f00:2]:${port}`];
    const before = connections;
    await withForwarder(direct, [HOST_ADDRESS], async (fwd) => {
      for (const a of authorities)
        for (const how of ['GET', 'CONNECT', 'WS'] as const) expect(await viaForwarder(fwd, how, a), `${how} ${a}`).toMatchObject({ status: 403 });
      const page = await viaForwarder(fwd, 'GET', authorities[0]);
      expect(page.body).toContain("denied by the engine's egress policy (this host's own address)");
      expect(page.body).toContain('--egress-allow-loopback');
    });
    expect(connections).toBe(before);
    await withForwarder(direct, [], async (fwd) => {
      for (const a of authorities) {
        expect(await viaForwarder(fwd, 'GET', a), a).toEqual({ status: 200, body: 'reached' });
        expect(await viaForwarder(fwd, 'CONNECT', a), a).toMatchObject({ status: 200 });
      }
    });
    expect(connections).toBeGreaterThan(before);
  });

  it('private_hosts, a proxy or a proxy route at the address, and the address behind a proxy do not reopen it', async () => {
    const before = connections;
    // A session's private hosts go direct past its proxy (never asked here): still resolved and checked.
    const unaskedProxy = { protocol: 'http' as const, host: '198.51.100.1', port: 3128 };
    await withForwarder({ upstream: unaskedProxy, bypass: [], privateHosts: ['host.test', HOST_ADDRESS] }, [HOST_ADDRESS], async (fwd) => {
      for (const host of ['host.test', HOST_ADDRESS])
        for (const how of ['GET', 'CONNECT'] as const) expect(await viaForwarder(fwd, how, `${host}:${port}`), `${how} ${host}`).toMatchObject({ status: 403 });
    });
    // A proxy, or a route's proxy, at the host address (by name): refused before connecting to it.
    const hostProxy = { protocol: 'http' as const, host: 'host.test', port };
    for (const route of [
      { upstream: hostProxy, bypass: [] },
      { upstream: null, bypass: [], routes: [{ hosts: ['example.test'], upstream: hostProxy }] },
    ] satisfies Route[])
      await withForwarder(route, [HOST_ADDRESS], async (fwd) => {
        for (const how of ['GET', 'CONNECT'] as const) expect(await viaForwarder(fwd, how, 'example.test:443'), how).toMatchObject({ status: 403 });
      });
    // The host address written as the destination is refused before any proxy is asked.
    await withForwarder({ upstream: unaskedProxy, bypass: [] }, [HOST_ADDRESS], async (fwd) => {
      for (const how of ['GET', 'CONNECT'] as const) expect(await viaForwarder(fwd, how, `${HOST_ADDRESS}:${port}`), how).toMatchObject({ status: 403 });
    });
    expect(connections).toBe(before);
    // Control: allowed, the private host and the proxy at that address are connected to.
    await withForwarder({ upstream: unaskedProxy, bypass: [], privateHosts: ['host.test'] }, [], async (fwd) => {
      expect(await viaForwarder(fwd, 'GET', `host.test:${port}`)).toEqual({ status: 200, body: 'reached' });
    });
    await withForwarder({ upstream: hostProxy, bypass: [] }, [], async (fwd) => {
      expect(await viaForwarder(fwd, 'GET', 'example.test:80')).toEqual({ status: 200, body: 'reached' });
    });
    expect(connections).toBeGreaterThan(before);
  });
});
