import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { SessionHandle } from '../session/session-handle.js';
import { SpareUpstreams } from './spare-upstream.js';

/** A browser's DevTools endpoint stand-in: counts connections and which are open. */
async function endpoint() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  const open = new Set<WebSocket>();
  server.on('connection', (ws) => {
    open.add(ws);
    ws.on('close', () => open.delete(ws));
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/devtools/browser/x`;
  return { server, url, open };
}

/** A session stand-in; `restart(url)` is a new browser at `url` (the runtime tells its listeners once it is up). */
function handle(url: string) {
  const ac = new AbortController();
  const restartFns = new Set<() => void>();
  const h = {
    signal: ac.signal,
    browserCdpUrl: () => url,
    onBrowserRestart: (fn: () => void) => (restartFns.add(fn), () => void restartFns.delete(fn)),
  } as unknown as SessionHandle;
  const restart = (next = url) => {
    url = next;
    [...restartFns].forEach((fn) => fn());
  };
  return { h, end: () => ac.abort(), restart, listeners: () => restartFns.size };
}

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** One browser stand-in (closed after the test), a session on it and a fresh SpareUpstreams. */
async function setup() {
  const e = await endpoint();
  servers.push(e.server);
  return { e, spares: new SpareUpstreams({}), s: handle(e.url) };
}

describe('SpareUpstreams', () => {
  it('opens one connection ahead and hands it over open, once', async () => {
    const { e, spares, s } = await setup();
    spares.prepare(s.h);
    spares.prepare(s.h);
    await expect.poll(() => e.open.size).toBe(1);
    const ws = spares.take(s.h, e.url)!;
    expect(ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING).toBe(true);
    expect(spares.take(s.h, e.url)).toBeUndefined();
    // Handed over: the spare no longer follows the session (its end does not close the taker's connection).
    s.end();
    await new Promise((r) => setTimeout(r, 50));
    expect(ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING).toBe(true);
    expect(s.listeners()).toBe(0);
    ws.on('error', () => {});
    ws.close();
    await expect.poll(() => e.open.size).toBe(0);
  });

  it('keeps the spare for a browser-level client when a page endpoint is asked for', async () => {
    const { e, spares, s } = await setup();
    spares.prepare(s.h);
    expect(spares.take(s.h, e.url.replace('/browser/x', '/page/p'))).toBeUndefined();
    const ws = spares.take(s.h, e.url)!;
    expect(ws).toBeDefined();
    // The taker owns it now, listeners and all (the proxy's bridge adds its own at once).
    ws.on('error', () => {});
    ws.terminate();
  });

  it('replaces the spare by one to the new browser when the browser restarts, until the session ends', async () => {
    const before = await endpoint();
    const after = await endpoint();
    servers.push(before.server, after.server);
    const spares = new SpareUpstreams({});
    const s = handle(before.url);
    spares.prepare(s.h);
    await expect.poll(() => before.open.size).toBe(1);
    s.restart(after.url);
    await expect.poll(() => before.open.size).toBe(0);
    await expect.poll(() => after.open.size).toBe(1);
    expect(spares.take(s.h, before.url)).toBeUndefined();
    const ws = spares.take(s.h, after.url)!;
    expect(ws).toBeDefined();
    ws.on('error', () => {});
    ws.close();
    await expect.poll(() => after.open.size).toBe(0);
    // Taken and not refilled (the proxy refills later): a restart still opens one to the next browser.
    s.restart(before.url);
    await expect.poll(() => before.open.size).toBe(1);
    s.end();
    await expect.poll(() => before.open.size).toBe(0);
    expect(s.listeners()).toBe(0);
    // An ended session's restart listener is gone: nothing opens any more.
    s.restart(after.url);
    await new Promise((r) => setTimeout(r, 50));
    expect(after.open.size).toBe(0);
  });

  it('a proxy that never prepared a session keeps nothing open across its restarts', async () => {
    const { e, spares, s } = await setup();
    expect(spares.take(s.h, e.url)).toBeUndefined();
    s.restart();
    await new Promise((r) => setTimeout(r, 50));
    expect(e.open.size).toBe(0);
    expect(s.listeners()).toBe(0);
  });

  it('drops the spare when the session ends and when the browser closes it', async () => {
    const { e, spares, s } = await setup();

    spares.prepare(s.h);
    await expect.poll(() => e.open.size).toBe(1);
    for (const ws of e.open) ws.close();
    await expect.poll(() => e.open.size).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(spares.take(s.h, e.url)).toBeUndefined();

    spares.prepare(s.h);
    await expect.poll(() => e.open.size).toBe(1);
    s.end();
    await expect.poll(() => e.open.size).toBe(0);
    expect(spares.take(s.h, e.url)).toBeUndefined();
    // Nothing opens for an ended session.
    spares.prepare(s.h);
    expect(spares.take(s.h, e.url)).toBeUndefined();
  });

  it('a spare whose browser is gone before it opened is dropped without an unhandled error', async () => {
    const e = await endpoint();
    await new Promise((r) => e.server.close(r));
    const spares = new SpareUpstreams({});
    const s = handle(e.url);
    spares.prepare(s.h);
    await new Promise((r) => setTimeout(r, 100));
    expect(spares.take(s.h, e.url)).toBeUndefined();
    s.end();
    expect(s.listeners()).toBe(0);
  });
});
