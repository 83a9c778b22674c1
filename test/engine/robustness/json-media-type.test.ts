/**
 * A JSON route sent another media type answers 415 and does nothing: before, the raw body was
 * validated as an object, its stream fields stripped as unknown (http/unknown-fields.ts), and the
 * route ran as if called without a body — `POST /browsers` with `text/plain` launched a browser,
 * `POST /profiles` with an upload made a profile. JSON, an empty JSON body and no body still work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
});
afterAll(() => t?.stop());

const send = (p: string, contentType: string, body: string) => t.api(p, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('a JSON route and another media type', () => {
  it('answers 415 with an Error object and creates nothing', async () => {
    for (const [p, type, body] of [
      ['/browsers', 'text/plain', 'headless please'],
      ['/browsers', 'application/octet-stream', '\x01\x02\x03'],
      ['/profiles', 'application/x-www-form-urlencoded', 'name=from-a-form'],
      ['/profiles', 'text/plain', '{"name":"plain-json"}'],
    ] as const) {
      const res = await send(p, type, body);
      expect(res.status, `${p} ${type}`).toBe(415);
      const err = (await res.json()) as { code: string; message: string };
      expect(err.code).toBe('unsupported_media_type');
      expect(err.message).toContain(type);
    }
    expect((await t.client.browsers.list()).getPaginatedItems()).toEqual([]);
    expect((await t.client.profiles.list()).getPaginatedItems().map((p) => p.name)).toEqual([]);
  });

  it('still takes JSON, an empty JSON body and no body', async () => {
    const made = await send('/profiles', 'application/json', '{"name":"as-json"}');
    expect(made.status).toBe(200);
    // POST /profiles with no body: all its fields are optional, so a profile with a generated name.
    expect((await t.api('/profiles', { method: 'POST' })).status).toBe(200);
    expect((await send('/profiles', 'application/json', '')).status).toBe(200);
    expect((await t.client.profiles.list()).getPaginatedItems().map((p) => p.name)).toContain('as-json');
  });
});
