/**
 * The telemetry stream and events endpoints as a client sees them: 404 for unknown sessions,
 * fresh vs `replay=all`, `Last-Event-ID` resume without gaps, comment keepalives (short
 * injected interval), SSE framing (id + data, never event), a bounded ring buffer, open but
 * silent when telemetry is off until a PATCH turns it on live, the stream closing at session
 * end (after it, a stream delivers the recorded history and ends), and `/telemetry/events` paging, filters and bad inputs. Control events (one per API
 * call on the session) make the traffic, so no page activity is needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { features } from '../../../src/engine/features.js';
import { createTelemetryFeature } from '../../../src/engine/api/session-telemetry.js';
import { collect, type Envelope } from './telemetry-helpers.js';

const BUFFER = 64;
let te: TestEngine;
let id: string;

beforeAll(async () => {
  const list = features.map((f) => (f.name === 'session-telemetry' ? createTelemetryFeature({ keepaliveMs: 300 }) : f));
  // The buffer is sized where the service is built (compose.ts), from the environment.
  te = await startTestEngine({ env: { ...process.env, BROWSERDECK_TELEMETRY_BUFFER_EVENTS: String(BUFFER) } }, list);
  id = (await te.client.browsers.create({ headless: true, timeout_seconds: 300, viewport: { width: 640, height: 480 } })).session_id;
}, 60_000);

afterAll(async () => {
  await te?.stop();
});

/**
 * One agent-driven API call on the session = one control/api_call event (since Kernel 0.94 a
 * call that manages the session, such as fs, is a platform_api_call, a category off by default).
 */
const call = () => te.client.browsers.computer.getMousePosition(id);
const calls = async (n: number) => {
  for (let i = 0; i < n; i++) await call();
};

async function events(query: string): Promise<{ items: Envelope[]; more: string | null; next: string | null; status: number; body: Record<string, unknown> }> {
  const res = await te.api(`/browsers/${id}/telemetry/events${query}`);
  const body = await res.json();
  return { items: res.ok ? (body as Envelope[]) : [], more: res.headers.get('x-has-more'), next: res.headers.get('x-next-offset'), status: res.status, body };
}

describe('telemetry stream', () => {
  it('answers 404 for an unknown session', async () => {
    await expect(te.client.browsers.telemetry.stream('no-such-session')).rejects.toMatchObject({ status: 404 });
    expect((await te.api('/browsers/no-such-session/telemetry/events')).status).toBe(404);
  });

  it('sends only new events on a fresh connection and everything retained with replay=all', async () => {
    await calls(3);
    const fresh = collect(await te.client.browsers.telemetry.stream(id));
    const all = collect(await te.client.browsers.telemetry.stream(id, { replay: 'all' }));
    const first = await all.until(() => true);
    expect(first.seq).toBe(1);
    expect(first.event).toMatchObject({ category: 'control', type: 'api_call' });
    await call();
    const newest = await fresh.until((e) => e.event.type === 'api_call');
    expect(fresh.events[0].seq).toBe(newest.seq);
    expect(newest.seq).toBeGreaterThanOrEqual(4);
    await all.until((e) => e.seq === newest.seq);
    expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: newest.seq }, (_, i) => i + 1));
  });

  it('resumes with Last-Event-ID without gaps (and it takes precedence over replay)', async () => {
    const ac = new AbortController();
    const a = collect(await te.client.browsers.telemetry.stream(id, {}, { signal: ac.signal }));
    await call();
    const seen = await a.until((e) => e.event.type === 'api_call');
    ac.abort();
    await a.ended;
    await calls(3);
    const b = collect(await te.client.browsers.telemetry.stream(id, { replay: 'all', 'Last-Event-ID': String(seen.seq) }));
    await b.until((e) => e.seq >= seen.seq + 3);
    expect(b.events.slice(0, 3).map((e) => e.seq)).toEqual([seen.seq + 1, seen.seq + 2, seen.seq + 3]);
    await expect(te.client.browsers.telemetry.stream(id, { 'Last-Event-ID': 'abc' })).rejects.toMatchObject({ status: 400 });
  });

  it('frames carry id and data but never event, and idle streams get comment keepalives', async () => {
    const res = await te.api(`/browsers/${id}/telemetry/stream?replay=all`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    while (!/^: keepalive$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const frames = text.split('\n\n').filter((f) => f.startsWith('id:'));
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) {
      const [idLine, dataLine] = f.split('\n');
      const env = JSON.parse(dataLine.slice('data: '.length)) as Envelope;
      expect(idLine).toBe(`id: ${env.seq}`);
    }
    expect(text).not.toMatch(/^event:/m);
  });

  it('retains a bounded ring buffer', async () => {
    await calls(BUFFER + 10);
    const page = await events('?offset=0&limit=1000');
    expect(page.items.length).toBe(BUFFER);
    expect(page.items[0].seq).toBeGreaterThan(1);
    const all = collect(await te.client.browsers.telemetry.stream(id, { replay: 'all' }));
    expect((await all.until(() => true)).seq).toBe(page.items[0].seq);
  });

  it('pages, filters and orders /telemetry/events, and rejects bad inputs', async () => {
    const p1 = await events('?limit=5');
    expect(p1.items).toHaveLength(5);
    expect(p1.more).toBe('true');
    const p2 = await events(`?limit=5&offset=${p1.next}`);
    expect(p2.items[0].seq).toBe(p1.items[4].seq + 1);
    const viaSdk: Envelope[] = [];
    for await (const e of te.client.browsers.telemetry.events(id, { limit: 20, category: ['control', 'connection'] })) viaSdk.push(e as unknown as Envelope);
    expect(viaSdk.length).toBe(BUFFER);
    expect(new Set(viaSdk.map((e) => e.seq)).size).toBe(viaSdk.length);
    expect((await events('?category=console')).items).toEqual([]);
    expect((await events('?category=console&category=control')).items.length).toBeGreaterThan(0);
    const desc = await events('?order=desc&limit=3');
    expect(desc.items[0].seq).toBeGreaterThan(desc.items[1].seq);
    const desc2 = await events(`?order=desc&limit=3&offset=${desc.next}`);
    expect(desc2.items[0].seq).toBe(desc.items[2].seq - 1);
    expect((await events(`?until=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).items).toEqual([]);
    expect((await events('?since=1h')).items.length).toBeGreaterThan(0);
    expect((await events('?since=1s&until=2h')).items).toEqual([]);
    for (const bad of ['?order=desc&since=5m', '?since=yesterday', '?until=5x', '?category=bogus', '?order=sideways', '?limit=0', '?offset=-1']) {
      const r = await events(bad);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
  });

  it('is open but silent while telemetry is off, turns on live with PATCH, closes when the session ends, then replays its history', async () => {
    const other = (
      await te.client.browsers.create({ headless: true, timeout_seconds: 300, viewport: { width: 640, height: 480 }, telemetry: { enabled: false } })
    ).session_id;
    const s = collect(await te.client.browsers.telemetry.stream(other, { replay: 'all' }));
    await te.client.browsers.computer.getMousePosition(other);
    const updated = await te.client.browsers.update(other, { telemetry: { browser: { control: { enabled: true } } } });
    expect(updated.telemetry?.browser?.control?.enabled).toBe(true);
    await te.client.browsers.computer.getMousePosition(other);
    const first = await s.until(() => true);
    // Nothing was recorded before the PATCH: the first event is the call after it.
    expect(first.seq).toBe(1);
    expect(first.event.type).toBe('api_call');
    expect(s.events.every((e) => e.event.category === 'control')).toBe(true);
    await te.client.browsers.deleteByID(other);
    await s.ended;
    // Ended (its post-mortem): nothing new will come, so a stream without replay ends at once; with replay=all it delivers the history, then ends.
    const late = collect(await te.client.browsers.telemetry.stream(other));
    await late.ended;
    expect(late.events).toEqual([]);
    const history = collect(await te.client.browsers.telemetry.stream(other, { replay: 'all' }));
    await history.ended;
    expect(history.events.map((e) => e.seq)).toEqual(s.events.map((e) => e.seq));
  }, 60_000);
});
