import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkThroughProxy } from './proxy-check.js';
import { OPEN_EGRESS } from '../../runtime/proxy-forwarder/egress-policy.js';
import type { Upstream } from '../../runtime/proxy-forwarder/upstream.js';

/** A "proxy" that closes every CONNECT without a word (any plain HTTP server does). */
let server: http.Server;
let connections = 0;
beforeAll(async () => {
  server = http.createServer((_req, res) => res.end('not a proxy'));
  server.on('connection', () => connections++);
  server.on('connect', (_req, socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('checkThroughProxy', () => {
  it('answers unavailable for a proxy that drops every tunnel, and stops connecting to it', async () => {
    const upstream = { protocol: 'http', host: '127.0.0.1', port: (server.address() as AddressInfo).port } as Upstream;
    // undici reconnects to such a proxy in a loop that ignores the request's abort signal: before
    // the agent was destroyed at the deadline, this never answered (killed at 60 s, ~30,000 connections).
    const r = await checkThroughProxy(upstream, 'https://example.invalid/', 1000, OPEN_EGRESS);
    expect(r).toMatchObject({ status: 'unavailable', ip_address: null });
    const after = connections;
    await new Promise((res) => setTimeout(res, 500));
    expect(connections - after).toBeLessThanOrEqual(2);
  });
});
