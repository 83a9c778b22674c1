/**
 * OTLP destinations and export on the engine's store as `npm test` runs it twice: SQLite, then
 * PostgreSQL (`*.pg.test.ts`, BROWSERDECK_TEST_DATABASE_URL; test/helpers/engine.ts makes a fresh
 * database per file). What depends on the database: the org-wide case-insensitive unique name,
 * lookups and filters by name and query, pages, per-name header edits stored encrypted, the 409
 * while a running session's telemetry JSON names the destination, and the health columns
 * (`consecutive_failures + 1`, the flips the change feed is told about) — written by one real
 * export of a session to a decoding OTLP receiver and by recorded failures.
 */
import type { Static } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { pollUntil } from '../../helpers/poll-until.js';
import { expectErrorResponse } from '../org/org-fixtures.js';
import type { Session } from '../../../src/shared/wire/sessions.js';
import type { OtlpDestinationSchema } from '../../../src/shared/wire/telemetry-destinations.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

type Destination = Static<typeof OtlpDestinationSchema>;
let t: TestEngine;
let recv: OtlpReceiver;

beforeAll(async () => {
  recv = await startOtlpReceiver();
  t = await startTestEngine({ env: { ...process.env, BROWSERDECK_OTLP_EXPORT_DELAY_MS: '200', BROWSERDECK_OTLP_EXPORT_TIMEOUT_MS: '4000' } });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await recv?.close();
});

async function json<T = Destination>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBeLessThan(300);
  return text ? (JSON.parse(text) as T) : (undefined as T);
}
const post = (body: unknown) => t.api('/telemetry/destinations', { method: 'POST', json: body });
const get = (idOrName: string) => json(t.api(`/telemetry/destinations/${encodeURIComponent(idOrName)}`));
const list = (query: string) => json<Array<{ id: string; name: string }>>(t.api(`/telemetry/destinations${query}`));

describe('OTLP destinations on the store', () => {
  it('create, read by id and by name in any case, filter, page, patch headers per name, delete', async () => {
    const a = await json(post({ name: 'Collector-A', endpoint: 'https://otel-a.example/', headers: { 'x-api-key': 'secret-a' } }));
    const b = await json(post({ name: 'collector-b', endpoint: 'http://otel-b.internal:4318/otlp' }));
    expect((await get('collector-a')).id).toBe(a.id);
    expect((await get('COLLECTOR-A')).id).toBe(a.id);
    expect((await get(a.id)).headers).toEqual({ 'X-Api-Key': '' });

    // The name is unique in the org whatever its case.
    const dup = await expectErrorResponse(await post({ name: 'COLLECTOR-A', endpoint: 'https://otel-c.example' }), 409);
    expect(dup.code).toBe('destination_name_taken');

    expect((await list('?name=collector-b')).map((d) => d.id)).toEqual([b.id]);
    expect((await list('?query=OTEL-B.INTERNAL')).map((d) => d.id)).toEqual([b.id]);
    expect((await list('?query=collector')).map((d) => d.id)).toEqual([a.id, b.id]);
    expect((await list(`?query=${a.id}`)).map((d) => d.id)).toEqual([a.id]);
    const page1 = await t.api('/telemetry/destinations?limit=1');
    expect(page1.headers.get('x-has-more')).toBe('true');
    expect(((await page1.json()) as Array<{ id: string }>).map((d) => d.id)).toEqual([a.id]);
    const page2 = await t.api('/telemetry/destinations?limit=1&offset=1');
    expect(page2.headers.get('x-has-more')).toBe('false');
    expect(((await page2.json()) as Array<{ id: string }>).map((d) => d.id)).toEqual([b.id]);

    const patched = await json(
      t.api(`/telemetry/destinations/${a.id}`, {
        method: 'PATCH',
        json: { name: 'collector-a2', description: 'team', headers: { 'X-API-KEY': null, Authorization: 'Bearer k' } },
      }),
    );
    expect(patched).toMatchObject({ name: 'collector-a2', description: 'team', headers: { Authorization: '' } });
    const records = t.engine.services.telemetryExports.records;
    expect(records.headersOf(await records.get(t.engine.context.orgId, a.id))).toEqual({ Authorization: 'Bearer k' });
    const stored = JSON.stringify(await t.engine.context.db.selectFrom('telemetry_destinations').selectAll().execute());
    expect(stored).not.toContain('secret-a');
    expect(stored).not.toContain('Bearer k');

    for (const d of [a, b]) expect((await t.api(`/telemetry/destinations/${d.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectErrorResponse(await t.api(`/telemetry/destinations/${a.id}`), 404);
    expect(await list('')).toEqual([]);
  });

  it('exports a session to a real receiver, records health, and is 409 to delete while bound', async () => {
    const dest = await json(post({ name: 'pg-recv', endpoint: recv.url, headers: { Authorization: 'Bearer pg-key' } }));
    const session = await json<Session>(
      t.api('/browsers', { method: 'POST', json: { headless: true, telemetry: { export: { otlp: { destination: { name: 'PG-RECV' } } } } } }),
    );
    const id = session.session_id as string;
    expect(session.telemetry?.export).toEqual({ otlp: { destination: dest.id, enabled: true } });
    const browser = await chromium.connectOverCDP(session.cdp_ws_url);
    await browser.close();
    const exported = await pollUntil(
      'cdp_connect exported',
      async () => recv.records.filter((r) => r.resource['session.id'] === id),
      (rs) => rs.some((r) => r.eventName === 'cdp_connect'),
    );
    expect(exported.find((r) => r.eventName === 'cdp_connect')!.attributes).toMatchObject({ 'session.id': id, 'telemetry.type': 'cdp_connect' });
    expect(recv.requests.at(-1)!.headers.authorization).toBe('Bearer pg-key');
    const healthy = await pollUntil(
      'success recorded',
      () => get(dest.id),
      (d) => !!d.last_success_at,
    );
    expect(healthy.consecutive_failures).toBe(0);

    // The running session's telemetry JSON names it: no delete, no rename.
    expect((await expectErrorResponse(await t.api(`/telemetry/destinations/${dest.id}`, { method: 'DELETE' }), 409)).code).toBe('destination_in_use');
    await expectErrorResponse(await t.api(`/telemetry/destinations/${dest.id}`, { method: 'PATCH', json: { name: 'other' } }), 409);
    expect((await t.api(`/browsers/${id}`, { method: 'DELETE' })).status).toBe(204);
    // Closed, its last batch sent and that batch's outcome written (CI-28: a late success landed
    // between the two failures below).
    await pollUntil(
      'export closed',
      async () => t.engine.services.telemetryExports.active + t.engine.services.telemetryExports.settling,
      (n) => n === 0,
    );

    // Failures count up in SQL and flip the health once each way (the org is answered only on a flip).
    const records = t.engine.services.telemetryExports.records;
    expect(await records.recordOutcome(dest.id, { ok: false, error: 'collector says no (503)' })).toBe(t.engine.context.orgId);
    expect(await records.recordOutcome(dest.id, { ok: false, error: 'still down' })).toBeUndefined();
    const failing = await get(dest.id);
    expect(failing).toMatchObject({ consecutive_failures: 2, last_error: 'still down', last_error_at: expect.any(String) });
    expect(await records.recordOutcome(dest.id, { ok: true })).toBe(t.engine.context.orgId);
    expect((await get(dest.id)).consecutive_failures).toBe(0);
    expect(await records.recordOutcome('no-such-destination', { ok: true })).toBeUndefined();

    expect((await t.api(`/telemetry/destinations/${dest.id}`, { method: 'DELETE' })).status).toBe(204);
  }, 120_000);
});
