/**
 * Shared setup of the isolation tests: an engine with two sessions (A, the one under test; B,
 * another organization's), a loopback "host service" standing for anything else on the
 * machine, and the addresses a sandbox must not reach — each first shown reachable from the
 * test process itself, so a refused connection inside means isolation, not a dead port.
 */
import { devtoolsEndpoint } from '../../../src/engine/runtime/chromium/devtools-address.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

export interface IsolationFixture {
  te: TestEngine;
  a: string;
  b: string;
  /** `browser id` path of a session's current Chromium (`/devtools/browser/<uuid>`). */
  browserPath(id: string): string;
  /** host:port of a session's Chromium DevTools endpoint. */
  devtoolsHost(id: string): string;
  hostService: { url: string; close(): Promise<void> };
  /** URLs that must be unreachable from a sandbox of A (B's DevTools, the engine, the host service). */
  forbidden(): Record<string, string>;
}

interface Handle {
  browserCdpUrl(): string;
  dirs: { root: string; userData: string };
}

export function handleOf(te: TestEngine, id: string): Handle {
  return (te.engine.services.sessions as { get(id: string): Handle }).get(id);
}

export async function startIsolationFixture(): Promise<IsolationFixture> {
  const te = await startTestEngine();
  const a = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
  // B belongs to another organization's project in spirit; on the wire all that matters is
  // that it is another session with its own Chromium on this machine.
  const b = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
  const server = http.createServer((_req, res) => res.end('host service'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hostService = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const endpoint = (id: string) => devtoolsEndpoint(handleOf(te, id).browserCdpUrl());
  // A jailed browser has no host port at all (DevTools only behind its jail's Unix socket).
  const devtoolsHost = (id: string) => (endpoint(id).socketPath ? '' : `${endpoint(id).host}:${endpoint(id).port}`);
  const devtoolsUrls = (): Record<string, string> =>
    endpoint(a).socketPath
      ? {}
      : { otherSessionDevtools: `http://${devtoolsHost(b)}/json/version`, ownDevtoolsDirect: `http://${devtoolsHost(a)}/json/version` };
  return {
    te,
    a,
    b,
    browserPath: (id) => endpoint(id).path,
    devtoolsHost,
    hostService,
    forbidden: () => ({
      ...devtoolsUrls(),
      engine: `${te.url}/openapi.json`,
      hostService: hostService.url,
    }),
  };
}

/** Proves every forbidden URL answers from the test process (so "unreachable inside" means something). */
export async function assertReachableFromHost(urls: Record<string, string>): Promise<void> {
  for (const [name, url] of Object.entries(urls)) {
    const res = await fetch(url);
    if (!res.ok && res.status !== 401) throw new Error(`${name} (${url}) is not reachable from the host: ${res.status}`);
    await res.arrayBuffer();
  }
}
