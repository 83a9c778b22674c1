/**
 * OTLP export of a session's telemetry (Kernel spec §2.1 `telemetry.export`, §12) against a real
 * OTLP/HTTP receiver: the records arrive at `<endpoint>/v1/logs` with the destination's headers,
 * carry the session id (resource and record) and the event types; a PATCH of the destination's
 * headers reaches the running session; delivery health is recorded; a 503 is retried; rename and
 * delete are 409 while a session or a pool is bound; unbinding by PATCH works; a dead collector
 * does not touch the session (API answers, session ends) and shows up as failures; everything the
 * export opened is closed when the session ends. Real Chromium, raw HTTP as a newer SDK sends it.
 */
import type { Static } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { expectErrorResponse } from '../org/org-fixtures.js';
import type { Session } from '../../../src/shared/wire/sessions.js';
import type { BrowserPoolSchema } from '../../../src/shared/wire/pools.js';
import type { OtlpDestinationSchema } from '../../../src/shared/wire/telemetry-destinations.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

type Destination = Static<typeof OtlpDestinationSchema>;
type Pool = Static<typeof BrowserPoolSchema>;

let t: TestEngine;
let recv: OtlpReceiver;
let site: LocalServer;

beforeAll(async () => {
  recv = await startOtlpReceiver();
  site = await startLocalServer({ '/hello': `<!doctype html><title>otlp</title><script>console.log('hello-otlp')</script>` });
  t = await startTestEngine({ env: { ...process.env, BROWSERDECK_OTLP_EXPORT_DELAY_MS: '200', BROWSERDECK_OTLP_EXPORT_TIMEOUT_MS: '4000' } });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await recv?.close();
  await site?.close();
});

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBeLessThan(300);
  return JSON.parse(text) as T;
}
const destination = (id: string) => json<Destination>(t.api(`/telemetry/destinations/${id}`));
const forSession = (id: string) => recv.records.filter((r) => r.resource['session.id'] === id);
/** A CDP client connects and leaves: `cdp_connect`/`cdp_disconnect` events (the connection category is on by default). */
async function touchCdp(cdpWsUrl: string): Promise<void> {
  const browser = await chromium.connectOverCDP(cdpWsUrl);
  await browser.close();
}

describe('OTLP export of a session', () => {
  it('delivers the session’s events with its id and the destination’s headers; rotation, health, 409 while bound, unbind, clean end', async () => {
    const dest = await json<Destination>(
      t.api('/telemetry/destinations', { method: 'POST', json: { name: 'recv', endpoint: recv.url, headers: { Authorization: 'Bearer first-key' } } }),
    );
    const session = await json<Session>(
      t.api('/browsers', {
        method: 'POST',
        json: {
          headless: true,
          start_url: `${site.url}/hello`,
          telemetry: { browser: { console: { enabled: true } }, export: { otlp: { destination: { name: 'recv' } } } },
        },
      }),
    );
    const id = session.session_id as string;
    expect(session.telemetry?.export).toEqual({ otlp: { destination: dest.id, enabled: true } });
    expect((await json<Session>(t.api(`/browsers/${id}`))).telemetry?.export).toEqual({ otlp: { destination: dest.id, enabled: true } });

    const log = await pollUntil(
      'console_log exported',
      async () => forSession(id),
      (rs) => rs.some((r) => r.eventName === 'console_log'),
    );
    const hello = log.find((r) => r.eventName === 'console_log')!;
    expect(hello.resource).toMatchObject({ 'service.name': 'browserdeck', 'session.id': id });
    expect(hello.attributes).toMatchObject({ 'session.id': id, 'telemetry.category': 'console', 'telemetry.type': 'console_log' });
    expect(JSON.stringify(hello.body)).toContain('hello-otlp');
    expect(recv.requests.every((r) => r.path === '/v1/logs')).toBe(true);
    expect(recv.requests[0].headers.authorization).toBe('Bearer first-key');

    const healthy = await pollUntil(
      'success recorded',
      () => destination(dest.id),
      (d) => !!d.last_success_at,
    );
    expect(healthy.consecutive_failures).toBe(0);

    // A rotated key reaches the running session: the next export carries it.
    await json<Destination>(t.api(`/telemetry/destinations/${dest.id}`, { method: 'PATCH', json: { headers: { authorization: 'Bearer second-key' } } }));
    const before = recv.requests.length;
    await touchCdp(session.cdp_ws_url);
    await pollUntil(
      'cdp_connect exported',
      async () => forSession(id),
      (rs) => rs.some((r) => r.eventName === 'cdp_connect'),
    );
    expect(recv.requests.slice(before).map((r) => r.headers.authorization)).toContain('Bearer second-key');
    expect(recv.requests.slice(before).map((r) => r.headers.authorization)).not.toContain('Bearer first-key');

    // A 503 is retried: the records still arrive and health ends healthy.
    recv.failNext(1, 503);
    await touchCdp(session.cdp_ws_url);
    await pollUntil(
      'retried after 503',
      async () => recv.requests,
      (rs) => rs.some((r) => r.status === 503) && rs[rs.length - 1].status === 200,
    );
    await pollUntil(
      'healthy after retry',
      () => destination(dest.id),
      (d) => d.consecutive_failures === 0,
    );

    // Bound: no rename, no delete.
    const del = await expectErrorResponse(await t.api(`/telemetry/destinations/${dest.id}`, { method: 'DELETE' }), 409);
    expect(del.code).toBe('destination_in_use');
    await expectErrorResponse(await t.api(`/telemetry/destinations/${dest.id}`, { method: 'PATCH', json: { name: 'renamed' } }), 409);

    // Unbound by PATCH: the export stops, and the destination may be renamed.
    const off = await json<Session>(t.api(`/browsers/${id}`, { method: 'PATCH', json: { telemetry: { export: { otlp: { enabled: false } } } } }));
    expect(off.telemetry?.export).toEqual({ otlp: { enabled: false } });
    await pollUntil(
      'export stopped',
      async () => t.engine.services.telemetryExports.active,
      (n) => n === 0,
    );
    expect((await json<Destination>(t.api(`/telemetry/destinations/${dest.id}`, { method: 'PATCH', json: { name: 'recv' } }))).name).toBe('recv');

    // Bound again by PATCH, then the session ends: the export closes its connections.
    await json<Session>(t.api(`/browsers/${id}`, { method: 'PATCH', json: { telemetry: { export: { otlp: { destination: { id: dest.id } } } } } }));
    expect(t.engine.services.telemetryExports.active).toBe(1);
    expect((await t.api(`/browsers/${id}`, { method: 'DELETE' })).status).toBe(204);
    await pollUntil(
      'export closed',
      async () => t.engine.services.telemetryExports.active,
      (n) => n === 0,
    );
    await pollUntil(
      'no connection left open to the collector',
      () => recv.openConnections(),
      (n) => n === 0,
    );
    expect((await t.api(`/telemetry/destinations/${dest.id}`, { method: 'DELETE' })).status).toBe(204);
  }, 120_000);

  it('refuses a binding it cannot honour: unknown destination 404, enabled:false with one 400, capture off 400', async () => {
    await expectErrorResponse(
      await t.api('/browsers', { method: 'POST', json: { headless: true, telemetry: { export: { otlp: { destination: { name: 'nope' } } } } } }),
      404,
    );
    await json<Destination>(t.api('/telemetry/destinations', { method: 'POST', json: { name: 'refusals', endpoint: recv.url } }));
    const both = await expectErrorResponse(
      await t.api('/browsers', {
        method: 'POST',
        json: { headless: true, telemetry: { export: { otlp: { destination: { name: 'refusals' }, enabled: false } } } },
      }),
      400,
    );
    expect(both.message).toMatch(/enabled/);
    await expectErrorResponse(
      await t.api('/browsers', {
        method: 'POST',
        json: { headless: true, telemetry: { enabled: false, export: { otlp: { destination: { name: 'refusals' } } } } },
      }),
      400,
    );
    await expectErrorResponse(
      await t.api('/browsers', { method: 'POST', json: { headless: true, telemetry: { export: { otlp: { destination: { id: 'x', name: 'refusals' } } } } } }),
      400,
    );
  });

  it('a dead collector does not touch the session: the API answers, the session ends, failures are recorded', async () => {
    const dead = await startLocalServer(() => {});
    const deadUrl = dead.url;
    await dead.close();
    const dest = await json<Destination>(
      t.api('/telemetry/destinations', { method: 'POST', json: { name: 'dead', endpoint: deadUrl, headers: { 'X-Key': 'dead-secret' } } }),
    );
    const session = await json<Session>(
      t.api('/browsers', { method: 'POST', json: { headless: true, telemetry: { export: { otlp: { destination: { id: dest.id } } } } } }),
    );
    const id = session.session_id as string;
    for (let i = 0; i < 5; i++) expect((await t.api(`/browsers/${id}`)).status).toBe(200);
    await touchCdp(session.cdp_ws_url);
    expect((await json<unknown[]>(t.api(`/browsers/${id}/telemetry/events`))).length).toBeGreaterThan(0);
    const failing = await pollUntil(
      'failure recorded',
      () => destination(dest.id),
      (d) => d.consecutive_failures >= 1,
    );
    expect(failing.last_error).toMatch(/ECONNREFUSED|could not be reached/);
    expect(failing.last_error_at).toEqual(expect.any(String));
    expect(JSON.stringify(failing)).not.toContain('dead-secret');
    expect((await t.api(`/browsers/${id}`, { method: 'DELETE' })).status).toBe(204);
    await pollUntil(
      'export closed',
      async () => t.engine.services.telemetryExports.active,
      (n) => n === 0,
    );
  }, 120_000);

  it('a pool’s browsers export to its destination; the pool keeps it bound', async () => {
    const dest = await json<Destination>(t.api('/telemetry/destinations', { method: 'POST', json: { name: 'pool-recv', endpoint: recv.url } }));
    const pool = await json<Pool>(
      t.api('/browser_pools', { method: 'POST', json: { size: 1, headless: true, telemetry: { export: { otlp: { destination: { name: 'pool-recv' } } } } } }),
    );
    expect(pool.browser_pool_config.telemetry?.export).toEqual({ otlp: { destination: dest.id, enabled: true } });
    await expectErrorResponse(await t.api(`/telemetry/destinations/${dest.id}`, { method: 'DELETE' }), 409);
    const acquired = await json<Session>(t.api(`/browser_pools/${pool.id}/acquire`, { method: 'POST', json: { acquire_timeout_seconds: 60 } }));
    expect(acquired.telemetry?.export).toEqual({ otlp: { destination: dest.id, enabled: true } });
    await touchCdp(acquired.cdp_ws_url);
    await pollUntil(
      'pooled session exported',
      async () => forSession(acquired.session_id),
      (rs) => rs.length > 0,
    );
    expect((await t.api(`/browser_pools/${pool.id}`, { method: 'DELETE', json: { force: true } })).status).toBe(204);
  }, 180_000);
});
