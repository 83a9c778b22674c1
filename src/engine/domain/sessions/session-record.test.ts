/**
 * The Session object a row becomes (wire §3.0) with hand-made rows: URLs with the JWT, the
 * fields newer Kernel SDKs require (region, memory, proxy, location) defaulted for older rows,
 * optional fields omitted rather than null, uptime frozen once ended. The integration files
 * (test/engine/sessions/browsers-api, kernel-newer-fields) check the same through real sessions.
 */
import { describe, expect, it } from 'vitest';
import { sessionDto, sessionUrls, type SessionRow } from './session-record.js';
import type { LaunchOptions } from './session-options.js';

const base: LaunchOptions = { headless: true, stealth: false, viewport: { width: 1024, height: 768 }, kiosk_mode: false, gpu: false };

function row(options: Partial<LaunchOptions> = {}, over: Partial<SessionRow> = {}): SessionRow {
  return {
    id: 'abc123',
    org_id: 'org1',
    project_id: 'proj1',
    name: null,
    options: JSON.stringify({ ...base, ...options }),
    tags: '{}',
    telemetry: null,
    timeout_seconds: 120,
    profile_id: null,
    proxy_id: null,
    pool_id: null,
    pool_name: null,
    invocation_id: null,
    node_id: 'node1',
    pid: null,
    pgid: null,
    xvfb_pid: null,
    marker: '/tmp/x',
    created_at: '2026-01-01T00:00:00.000Z',
    deleted_at: null,
    ended_reason: null,
    ended_by: null,
    uptime_ms: null,
    ...over,
  };
}

const dto = (r: SessionRow, extra: Partial<Parameters<typeof sessionDto>[1]> = {}) =>
  sessionDto(r, { publicUrl: 'http://127.0.0.1:4000/', jwt: 'a.b+c', uptimeMs: 1234.4, ...extra });

describe('sessionUrls', () => {
  it('puts the id under /browsers and the (escaped) JWT on the WebSocket and live view URLs only', () => {
    expect(sessionUrls('http://127.0.0.1:4000//', 'a b', 'x+y')).toEqual({
      base_url: 'http://127.0.0.1:4000/browsers/a%20b',
      cdp_ws_url: 'ws://127.0.0.1:4000/browsers/a%20b/cdp?jwt=x%2By',
      webdriver_ws_url: 'ws://127.0.0.1:4000/browsers/a%20b/webdriver?jwt=x%2By',
      webdriver_url: 'http://127.0.0.1:4000/browsers/a%20b/webdriver',
      browser_live_view_url: 'http://127.0.0.1:4000/browsers/a%20b/live?jwt=x%2By',
    });
    expect(sessionUrls('https://deck.example', 'id', 'j').cdp_ws_url).toBe('wss://deck.example/browsers/id/cdp?jwt=j');
  });
});

describe('sessionDto', () => {
  it('a plain running session: required fields present, optional ones omitted, uptime live and rounded', () => {
    const d = dto(row());
    expect(d).toEqual({
      session_id: 'abc123',
      cdp_ws_url: 'ws://127.0.0.1:4000/browsers/abc123/cdp?jwt=a.b%2Bc',
      webdriver_ws_url: 'ws://127.0.0.1:4000/browsers/abc123/webdriver?jwt=a.b%2Bc',
      webdriver_url: 'http://127.0.0.1:4000/browsers/abc123/webdriver',
      browser_live_view_url: 'http://127.0.0.1:4000/browsers/abc123/live?jwt=a.b%2Bc',
      base_url: 'http://127.0.0.1:4000/browsers/abc123',
      created_at: '2026-01-01T00:00:00.000Z',
      headless: true,
      stealth: false,
      timeout_seconds: 120,
      gpu: false,
      kiosk_mode: false,
      location: { timezone: expect.any(String), locale: 'en-US', timezone_source: 'metro', locale_source: 'metro', pending: false },
      memory: '1GiB',
      proxy: { mode: 'default' },
      region: 'us-east',
      tags: {},
      telemetry: null,
      usage: { uptime_ms: 1234 },
      viewport: { width: 1024, height: 768 },
      jwt: 'a.b+c',
    });
  });

  it('rows from before region and memory get the defaults; headful rows 8GiB', () => {
    expect(dto(row({ headless: false })).memory).toBe('8GiB');
    expect(dto(row({ region: 'eu-west', memory: '16GiB' }))).toMatchObject({ region: 'eu-west', memory: '16GiB' });
  });

  it('reports a selected proxy by id (with proxy_id), else the mode asked for', () => {
    expect(dto(row({}, { proxy_id: 'p1' }))).toMatchObject({ proxy: { id: 'p1' }, proxy_id: 'p1' });
    const direct = dto(row({ proxy_mode: 'direct' }));
    expect(direct.proxy).toEqual({ mode: 'direct' });
    expect(direct).not.toHaveProperty('proxy_id');
  });

  it('location overrides are reported as such', () => {
    expect(dto(row({ location: { timezone: 'Asia/Tokyo', locale: 'he-IL' } })).location).toEqual({
      timezone: 'Asia/Tokyo',
      locale: 'he-IL',
      timezone_source: 'override',
      locale_source: 'override',
      pending: false,
    });
  });

  it('the optional fields appear when set', () => {
    const d = dto(
      row(
        { start_url: 'https://example.test/', chrome_policy: { URLBlocklist: ['x'] }, network: { private_hosts: ['intranet.test'] } },
        {
          name: 'api-one',
          tags: '{"team":"backend"}',
          telemetry: '{"enabled":true,"browser":{"console":{"enabled":true}}}',
          pool_id: 'pool1',
          pool_name: 'warm',
          invocation_id: 'inv1',
        },
      ),
    );
    expect(d).toMatchObject({
      name: 'api-one',
      tags: { team: 'backend' },
      telemetry: { enabled: true, browser: { console: { enabled: true } } },
      pool: { id: 'pool1', name: 'warm' },
      invocation_id: 'inv1',
      start_url: 'https://example.test/',
      chrome_policy: { URLBlocklist: ['x'] },
      network: { private_hosts: ['intranet.test'] },
    });
    expect(dto(row({}, { pool_id: 'pool1' })).pool).toEqual({ id: 'pool1' });
  });

  it('a profile: its current metadata when known (else only its id) and profile_save_changes, false by default', () => {
    const profile = { id: 'prof1', name: 'Shopping-Account', created_at: '2026-01-01T00:00:00.000Z' };
    expect(dto(row({ profile_save_changes: true }, { profile_id: 'prof1' }), { profile })).toMatchObject({ profile, profile_save_changes: true });
    expect(dto(row({}, { profile_id: 'prof1' }))).toMatchObject({ profile: { id: 'prof1' }, profile_save_changes: false });
    expect(dto(row({}, { profile_id: 'prof1' }), { profile: { id: 'other' } }).profile).toEqual({ id: 'prof1' });
    expect(dto(row({ profile_save_changes: true }))).not.toHaveProperty('profile_save_changes');
  });

  it('an ended session: deleted_at and the uptime recorded at its end, not the live one', () => {
    const d = dto(row({}, { deleted_at: '2026-01-01T00:10:00.000Z', uptime_ms: 10_500 }), { uptimeMs: 99 });
    expect(d).toMatchObject({ deleted_at: '2026-01-01T00:10:00.000Z', usage: { uptime_ms: 10_500 } });
  });

  it('the running viewport (after a resize) wins over the one launched with', () => {
    expect(dto(row(), { viewport: { width: 800, height: 600 } }).viewport).toEqual({ width: 800, height: 600 });
  });
});
