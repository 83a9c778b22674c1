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

function handle(url: string) {
  const ac = new AbortController();
  const restartFns = new Set<() => void>();
  const h = {
    signal: ac.signal,
    browserCdpUrl: () => url,
    onBrowserRestart: (fn: () => void) => (restartFns.add(fn), () => void restartFns.delete(fn)),
  } as unknown as SessionHandle;
  return { h, end: () => ac.abort(), restart: () => [...restartFns].forEach((fn) => fn()), listeners: () => restartFns.size };
}

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

describe('SpareUpstreams', () => {
  it('opens one connection ahead and hands it over open, once', async () => {
    const e = await endpoint();
    servers.push(e.server);
    const spares = new SpareUpstreams({});
    const s = handle(e.url);
    spares.prepare(s.h);
    spares.prepare(s.h);
    await expect.poll(() => e.open.size).toBe(1);
    const ws = spares.take(s.h, e.url)!;
    expect(ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING).toBe(true);
    expect(spares.take(s.h, e.url)).toBeUndefined();
    // Handed over without the spare's own listeners: it no longer watches restarts.
    expect(s.listeners()).toBe(0);
    ws.on('error', () => {});
    ws.close();
    await expect.poll(() => e.open.size).toBe(0);
  });

  it('keeps the spare for a browser-level client when a page endpoint is asked for', async () => {
    const e = await endpoint();
    servers.push(e.server);
    const spares = new SpareUpstreams({});
    const s = handle(e.url);
    spares.prepare(s.h);
    expect(spares.take(s.h, e.url.replace('/browser/x', '/page/p'))).toBeUndefined();
    const ws = spares.take(s.h, e.url)!;
    expect(ws).toBeDefined();
    // The taker owns it now, listeners and all (the proxy's bridge adds its own at once).
    ws.on('error', () => {});
    ws.terminate();
  });

  it('drops the spare when the browser restarts, when the session ends, and when the browser closes it', async () => {
    const e = await endpoint();
    servers.push(e.server);
    const spares = new SpareUpstreams({});
    const s = handle(e.url);

    spares.prepare(s.h);
    await expect.poll(() => e.open.size).toBe(1);
    s.restart();
    await expect.poll(() => e.open.size).toBe(0);
    expect(spares.take(s.h, e.url)).toBeUndefined();

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
    expect(s.listeners()).toBe(0);
  });
});
