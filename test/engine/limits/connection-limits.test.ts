/**
 * Issue 25 row 9: a tenant cannot take the engine's file descriptors by opening WebSockets to
 * its own session. Every upgrade (CDP, process attach, live view, BiDi, DevTools) passes one
 * gate in the upgrade router: 4 connections per session and 6 per engine here (scaled down).
 * The next one is refused before the handshake with HTTP 429 and the Error object
 * (`connection_limit`, naming the bound), with a `system_limit_reached` event in the session's
 * telemetry; another session still connects; closing a socket frees its slot; an upgrade
 * refused for its credentials holds none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';

let te: TestEngine;
let a: { id: string; cdp: string; jwt: string };
let b: { id: string; cdp: string };
const open: WebSocket[] = [];

type Outcome = { ws: WebSocket } | { status: number; body: { code?: string; message?: string } };

/** Opens a WebSocket: the socket once open, or the HTTP answer that refused the upgrade. */
function connect(url: string): Promise<Outcome> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      open.push(ws);
      resolve({ ws });
    });
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
    });
    ws.once('error', (err) => reject(err));
  });
}
async function opened(url: string): Promise<WebSocket> {
  const r = await connect(url);
  if (!('ws' in r)) throw new Error(`refused: ${r.status} ${JSON.stringify(r.body)}`);
  return r.ws;
}
async function refused(url: string): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const r = await connect(url);
  if ('ws' in r) throw new Error('the upgrade was accepted');
  return r;
}
const health = async () => (await (await fetch(`${te.url}/healthz`)).json()) as { limits: { connections: { open: number } } };
const openCount = (n: number) => pollUntil(`${n} open connections`, health, (h) => h.limits.connections.open === n);
async function close(ws: WebSocket): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return;
  await new Promise((r) => {
    ws.once('close', r);
    ws.close();
  });
}

beforeAll(async () => {
  te = await startTestEngine({ connectionLimits: { perSession: 4, perEngine: 6 } });
  const sa = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  const sb = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  a = { id: sa.session_id, cdp: sa.cdp_ws_url, jwt: new URL(sa.cdp_ws_url).searchParams.get('jwt')! };
  b = { id: sb.session_id, cdp: sb.cdp_ws_url };
});
afterAll(async () => {
  await Promise.all(open.map(close));
  await te?.stop();
});

describe('WebSocket connections per session and per engine', () => {
  it('refuses the 5th connection of a session with 429 before the handshake; another session connects; a close frees a slot', async () => {
    // One slot is a terminal attach, three are CDP: one budget across protocols.
    const spawned = await te.client.browsers.process.spawn(a.id, { command: 'cat' });
    const wsBase = te.url.replace(/^http/, 'ws');
    const attach = await opened(`${wsBase}/browsers/${a.id}/process/${spawned.process_id}/attach?jwt=${a.jwt}`);
    const cdp = [await opened(a.cdp), await opened(a.cdp), await opened(a.cdp)];
    await openCount(4);

    const fifth = await refused(a.cdp);
    expect(fifth.status).toBe(429);
    expect(fifth.body).toMatchObject({ code: 'connection_limit' });
    expect(fifth.body.message).toContain('--connections-per-session 4');
    // Live view and BiDi are refused by the same gate.
    expect((await refused(`${wsBase}/browsers/${a.id}/live/ws?jwt=${a.jwt}`)).status).toBe(429);
    expect((await refused(`${wsBase}/browsers/${a.id}/webdriver?jwt=${a.jwt}`)).status).toBe(429);

    // Another session carries on.
    const other = await opened(b.cdp);
    await close(other);

    // The session's telemetry says why.
    const events = await pollUntil(
      'a system_limit_reached event',
      async () =>
        (await (await te.api(`/browsers/${a.id}/telemetry/events?since=30m&category=system`)).json()) as Array<{ event: { type: string; data?: object } }>,
      (list) => list.some((e) => e.event.type === 'system_limit_reached'),
    );
    expect(events.find((e) => e.event.type === 'system_limit_reached')!.event.data).toEqual({ resource: 'connections', scope: 'session', limit: 4 });

    // Closing one frees its slot: the next connect works (and still works with CDP).
    await close(cdp[0]);
    await openCount(3);
    const again = await opened(a.cdp);
    const version = await new Promise<{ result?: { product?: string } }>((resolve) => {
      again.once('message', (d) => resolve(JSON.parse(d.toString())));
      again.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' }));
    });
    expect(version.result?.product).toMatch(/Chrome/);
    for (const ws of [attach, ...cdp.slice(1), again]) await close(ws);
    await te.client.browsers.process.kill(spawned.process_id!, { id: a.id, signal: 'KILL' });
    await openCount(0);
  });

  it('an upgrade refused for its credentials holds no slot', async () => {
    const held = [await opened(a.cdp), await opened(a.cdp), await opened(a.cdp)];
    const bad = new URL(a.cdp);
    bad.searchParams.set('jwt', 'not-a-token');
    for (let i = 0; i < 3; i++) expect((await refused(bad.toString())).status).toBe(401);
    await openCount(3);
    held.push(await opened(a.cdp));
    expect((await refused(a.cdp)).status).toBe(429);
    for (const ws of held) await close(ws);
    await openCount(0);
  });

  it("refuses any session's connection over the engine's bound, and frees it on close", async () => {
    const held = [await opened(a.cdp), await opened(a.cdp), await opened(a.cdp), await opened(a.cdp), await opened(b.cdp), await opened(b.cdp)];
    await openCount(6);
    const over = await refused(b.cdp);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: 'connection_limit' });
    expect(over.body.message).toContain('--connections-per-engine 6');
    await close(held.shift()!);
    await openCount(5);
    held.push(await opened(b.cdp));
    for (const ws of held) await close(ws);
    await openCount(0);
  });
});
