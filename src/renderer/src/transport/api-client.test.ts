/**
 * The typed client: path building (each param URL-encoded, a `*` param keeping its slashes, a
 * missing param refused), what a call hands the transport (on the desktop transport over a
 * recording stand-in for `window.api`, as desktop-transport.test.ts does), and the types it
 * infers from the route table — a key not in the table, a missing param or a body field of the
 * wrong type does not compile (`@ts-expect-error` fails the typecheck when the error goes away).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { api, buildPath, resolveRoute, type Answer, type ApiRoute } from './api-client.js';
import { DesktopTransport } from './desktop-transport.js';
import { setTransport } from './index.js';
import type { ExposedApi } from '../../../shared/ipc/contract.js';
import type { Session } from '../../../shared/wire/sessions.js';
import type { Health } from '../../../shared/wire/health.js';

function recordingApi(result: unknown) {
  const calls: Array<{ channel: string; args: unknown[] }> = [];
  const exposed = {
    invoke: async (channel: string, ...args: unknown[]) => {
      calls.push({ channel, args });
      return { result };
    },
    openStream: (req: unknown) => {
      calls.push({ channel: 'stream', args: [req] });
      return { dispose() {} };
    },
    on: () => () => {},
  } as unknown as ExposedApi;
  return { exposed, calls };
}

describe('api client: path building', () => {
  it('substitutes each param, URL-encoded', () => {
    expect(buildPath('/browsers/:id', { id: 'abc' })).toBe('/browsers/abc');
    expect(buildPath('/browsers/:id/process/:process_id/kill', { id: 'a b/c?', process_id: 'p#1' })).toBe('/browsers/a%20b%2Fc%3F/process/p%231/kill');
    expect(buildPath('/org/projects/:id/limits', { id: 42 })).toBe('/org/projects/42/limits');
  });

  it('keeps the slashes of a `*` param and encodes its segments', () => {
    expect(buildPath('/trace-viewer/:token/*', { token: 't', '*': 'a b/c.js' })).toBe('/trace-viewer/t/a%20b/c.js');
  });

  it('leaves a path without params as it is', () => {
    expect(buildPath('/audit-logs/export/chunk')).toBe('/audit-logs/export/chunk');
  });

  it('refuses a missing or empty param instead of sending /undefined', () => {
    expect(() => buildPath('/browsers/:id', {})).toThrow('path parameter "id" of /browsers/:id is missing');
    expect(() => buildPath('/browsers/:id/replays/:replay_id', { id: 's' })).toThrow('"replay_id"');
    expect(() => buildPath('/browsers/:id', { id: '' })).toThrow('"id"');
  });

  it('splits a key into its method and path', () => {
    expect(resolveRoute('PUT /browsers/:id/fs/move', { id: 's1' })).toEqual({ method: 'PUT', path: '/browsers/s1/fs/move' });
  });
});

describe('api client: calls through the transport', () => {
  it('sends method, built path, query, body and project; resolves with the body', async () => {
    const { exposed, calls } = recordingApi({ status: 200, headers: { 'x-has-more': 'false' }, body: { session_id: 's 1' } });
    setTransport(new DesktopTransport(exposed, () => 'proj_1'));
    const s = await api.call('GET /browsers/:id', { params: { id: 's 1' }, query: { include_deleted: true } });
    expect(s).toEqual({ session_id: 's 1' });
    await api.call('PATCH /browsers/:id', { params: { id: 's1' }, body: { viewport: { width: 800, height: 600 } }, projectId: 'proj_2' });
    const r = await api.send('GET /audit-logs', { query: { start: '2026-01-01T00:00:00Z', limit: 5 } });
    expect(r.headers['x-has-more']).toBe('false');
    expect(calls.map((c) => c.args[0])).toEqual([
      { method: 'GET', path: '/browsers/s%201', query: { include_deleted: true }, projectId: 'proj_1' },
      { method: 'PATCH', path: '/browsers/s1', body: { viewport: { width: 800, height: 600 } }, projectId: 'proj_2' },
      { method: 'GET', path: '/audit-logs', query: { start: '2026-01-01T00:00:00Z', limit: 5 }, projectId: 'proj_1' },
    ]);
  });

  it('streams, downloads and makes binary calls on built paths', async () => {
    const { exposed, calls } = recordingApi({ status: 200, headers: {}, data: new Uint8Array(), truncated: false });
    setTransport(new DesktopTransport(exposed));
    api.stream('GET /browsers/:id/telemetry/stream', { params: { id: 's/1' }, query: { replay: 'all' } });
    await api.download('GET /browsers/:id/replays/:replay_id', { opts: { params: { id: 's1', replay_id: 'r 1' } }, filename: 'r.mp4' });
    await api.download('GET /audit-logs/export/chunk', { opts: { query: { start: 'x', format: 'jsonl' } }, filename: 'a.jsonl', cursor: true });
    await api.binary('POST /browsers/:id/computer/screenshot', { params: { id: 's1' }, body: {} });
    await api.binary('GET /browsers/:id/fs/read_file', { params: { id: 's1' }, query: { path: '/a' }, maxBytes: 10 });
    expect(calls.map((c) => [c.channel, c.args[0]])).toEqual([
      ['stream', { path: '/browsers/s%2F1/telemetry/stream', query: { replay: 'all' } }],
      ['api:download', { path: '/browsers/s1/replays/r%201', filename: 'r.mp4' }],
      ['api:download', { path: '/audit-logs/export/chunk', query: { start: 'x', format: 'jsonl' }, filename: 'a.jsonl', cursor: true }],
      ['api:binary', { method: 'POST', path: '/browsers/s1/computer/screenshot', json: {} }],
      ['api:binary', { method: 'GET', path: '/browsers/s1/fs/read_file', query: { path: '/a' }, maxBytes: 10 }],
    ]);
  });
});

describe('api client: types from the route table', () => {
  it('types answers from the response schemas', () => {
    expectTypeOf<Answer<'GET /browsers/:id'>>().toEqualTypeOf<Session>();
    expectTypeOf<Answer<'GET /browsers'>>().toEqualTypeOf<Session[]>();
    expectTypeOf<Answer<'GET /healthz'>>().toEqualTypeOf<Health>();
    expectTypeOf<Answer<'DELETE /browsers/:id'>>().toBeUnknown();
  });

  it('splits multi-method keys and refuses keys, params and bodies the table does not have', () => {
    expectTypeOf<'PUT /browsers/:id/cdp/json/new'>().toExtend<ApiRoute>();
    expectTypeOf<'GET /browsers/:id/cdp/json/new'>().toExtend<ApiRoute>();
    expectTypeOf<'GET|PUT /browsers/:id/cdp/json/new'>().not.toExtend<ApiRoute>();
    expectTypeOf<'GET /no/such/route'>().not.toExtend<ApiRoute>();
    // Never run: only compiled, so each @ts-expect-error must stay an error.
    const uncalled = (): void => {
      // @ts-expect-error not a route of the table
      void api.call('GET /no/such/route');
      // @ts-expect-error the `id` param is required
      void api.call('GET /browsers/:id');
      // @ts-expect-error params must be the path's (`id`), not another name
      void api.call('GET /browsers/:id', { params: { session_id: 'x' } });
      // @ts-expect-error the body's fields are typed (`hidden` is a boolean)
      void api.call('POST /browsers/:id/computer/cursor', { params: { id: 'x' }, body: { hidden: 'yes' } });
      // @ts-expect-error a route without a query schema takes no query
      void api.call('GET /org/limits', { query: { x: 1 } });
      // @ts-expect-error stream reads GET routes only
      void api.stream('POST /browsers', {});
    };
    expect(typeof uncalled).toBe('function');
  });
});
