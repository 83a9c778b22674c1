/**
 * `GET /audit-logs/export/chunk`: the official client's `auditLogs.download()` walks the
 * cursor over several gzip chunks and verifies each chunk's SHA-256; `jsonl` chunks carry the
 * same headers. The exported lines are exactly what the search returns.
 *
 * @database the export cursor walks rows in order.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Kernel from '@onkernel/sdk';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { flushAudit, manualClock, secondOrg, sec } from './audit-helpers.js';

const T = '2026-04-01T00:00:00.000Z';
const clock = manualClock(sec(T, -3600));
const SEEDS = 23;
const window = { start: T, end: sec(T, SEEDS) };
let t: TestEngine;
let other: { key: string; keyId: string };

function sink() {
  const parts: Buffer[] = [];
  return { write: (b: Uint8Array) => void parts.push(Buffer.from(b)), bytes: () => Buffer.concat(parts) };
}
const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function searchAll(q: Record<string, unknown> = {}) {
  const all = [];
  for await (const e of t.client.auditLogs.list({ ...window, ...q })) all.push(e);
  return all;
}

beforeAll(async () => {
  t = await startTestEngine({ clock });
  other = await secondOrg(t);
  for (let i = 0; i < SEEDS; i++) {
    clock.set(sec(T, i));
    if (i % 5 === 4) await t.api('/org/projects', { method: 'POST', json: { name: `export-${i}` } });
    else await t.api(`/org/projects?seed=${i}`);
  }
  clock.set(sec(T, 2.5));
  await t.api('/org/projects?other-org', { headers: { authorization: `Bearer ${other.key}` } });
  clock.set(sec(T, 7200));
  await flushAudit(t);
});
afterAll(async () => {
  await t?.stop();
});

describe('audit export', () => {
  it('downloads every row over several verified gzip chunks with the official client', async () => {
    const dest = sink();
    const progress: number[] = [];
    const result = await t.client.auditLogs.download({ ...window, limit: 5 }, dest, { onProgress: (p) => void progress.push(p.chunkRows) });
    expect(result).toEqual({ chunks: 5, rows: SEEDS, bytesWritten: dest.bytes().length });
    expect(progress).toEqual([5, 5, 5, 5, 3]);
    const exported = lines(gunzipSync(dest.bytes()).toString('utf8'));
    expect(exported).toEqual(await searchAll());
    expect(exported.map((e) => e.path)).not.toContain('/org/projects?other-org');
  });

  it('applies the search filters to the export', async () => {
    const dest = sink();
    const result = await t.client.auditLogs.download({ ...window, method: 'POST', limit: 2 }, dest);
    expect(result.rows).toBe(4);
    expect(result.chunks).toBe(2);
    const exported = lines(gunzipSync(dest.bytes()).toString('utf8'));
    expect(exported.map((e) => e.method)).toEqual(['POST', 'POST', 'POST', 'POST']);
    expect(exported).toEqual(await searchAll({ method: 'POST' }));
  });

  it('serves jsonl chunks with row count, cursor and a SHA-256 of the body as sent', async () => {
    let cursor: string | undefined;
    const seen = new Set<string>();
    const got = [];
    for (;;) {
      const res = await t.client.auditLogs.exportChunk({ ...window, format: 'jsonl', limit: 10, ...(cursor ? { cursor } : {}) });
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('x-content-sha256')).toBe(createHash('sha256').update(body).digest('hex'));
      const rows = lines(body.toString('utf8'));
      expect(res.headers.get('x-row-count')).toBe(String(rows.length));
      got.push(...rows);
      const more = res.headers.get('x-has-more');
      expect(['true', 'false']).toContain(more);
      const next = res.headers.get('x-next-cursor');
      if (more === 'false') {
        expect(next).toBeNull();
        break;
      }
      expect(next).toBeTruthy();
      expect(next).not.toBe(cursor);
      expect(seen.has(next!)).toBe(false);
      seen.add(next!);
      cursor = next!;
    }
    expect(got.length).toBe(SEEDS);
    expect(got).toEqual(await searchAll());
  });

  it('answers an empty range with one empty, final chunk', async () => {
    const dest = sink();
    const result = await t.client.auditLogs.download({ start: sec(T, -100), end: sec(T, -50) }, dest);
    expect(result).toMatchObject({ chunks: 1, rows: 0 });
    expect(gunzipSync(dest.bytes()).length).toBe(0);
    const res = await t.api(`/audit-logs/export/chunk?start=${sec(T, -100)}&end=${sec(T, -50)}&format=jsonl`);
    expect(res.headers.get('x-has-more')).toBe('false');
    expect(res.headers.get('x-row-count')).toBe('0');
    expect(res.headers.get('x-content-sha256')).toBe(createHash('sha256').update(Buffer.alloc(0)).digest('hex'));
  });

  it('exports only the caller organization', async () => {
    const dest = sink();
    await t.clientWith({ apiKey: other.key }).auditLogs.download({ ...window }, dest);
    const exported = lines(gunzipSync(dest.bytes()).toString('utf8'));
    expect(exported.map((e) => [e.path, e.user_id])).toEqual([['/org/projects?other-org', other.keyId]]);
  });

  it('rejects bad export input with 400', async () => {
    const base = `start=${window.start}&end=${window.end}`;
    for (const [query, field] of [
      [`${base}&format=csv`, 'format'],
      [`${base}&limit=0`, 'limit'],
      [`${base}&limit=50001`, 'limit'],
      [`${base}&cursor=%%%`, 'cursor'],
      [`${base}&cursor=${Buffer.from('[1,2]').toString('base64url')}`, 'cursor'],
      [`end=${window.end}`, 'start'],
      [`start=${window.end}&end=${window.start}`, 'end'],
      [`${base}&exclude_method=A,B,C,D,E,F,G,H,I,J,K`, 'exclude_method'],
    ]) {
      const res = await t.api(`/audit-logs/export/chunk?${query}`, { headers: { accept: 'application/octet-stream' } });
      const body = await res.json();
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(body.details.map((d: { message: string }) => d.message).join(' ')).toContain(field);
    }
    await expect(t.client.auditLogs.exportChunk({ ...window, limit: 0 })).rejects.toBeInstanceOf(Kernel.BadRequestError);
  });
});
