/**
 * record_session and browser_telemetry of auth connections, against the real login website and
 * real Chromium: a recorded login flow leaves a downloadable MP4 named by its timeline entry,
 * and the flow session's telemetry carries the site's console output when the connection asks
 * for it; a login body can override both (here: off), and a bad telemetry config is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLoginSite, type LoginSite } from '../../helpers/login-site.js';

let t: TestEngine;
let site: LoginSite;

beforeAll(async () => {
  site = await startLoginSite({ 'ann@example.test': { password: 'correct horse' } });
  t = await startTestEngine({ identity: { minHealthCheckIntervalSeconds: 1, authFlowTtlSeconds: 120 } });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

const retrieve = (id: string) => t.client.auth.connections.retrieve(id);
const stepWith = (id: string, type: string) =>
  pollUntil(
    `${type} step`,
    () => retrieve(id),
    (c) => (c.flow_step === 'AWAITING_INPUT' && c.fields?.[0]?.type === type) || c.flow_status !== 'IN_PROGRESS',
  );
const finished = (id: string) =>
  pollUntil(
    'flow end',
    () => retrieve(id),
    (c) => c.flow_status !== 'IN_PROGRESS' && c.flow_status !== null,
  );

async function consoleTexts(sessionId: string): Promise<string[]> {
  const page = await t.client.browsers.telemetry.events(sessionId, { category: ['console'], limit: 100 });
  return page.getPaginatedItems().map((e) => JSON.stringify(e));
}

describe('auth connection flows: record_session and browser_telemetry', () => {
  it('records a replay of the whole flow and captures its console telemetry', async () => {
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'rec-profile',
      login_url: site.loginUrl,
      health_checks: false,
      save_credentials: false,
      record_session: true,
      browser_telemetry: { browser: { console: { enabled: true } } },
    });
    expect(c).toMatchObject({ record_session: true, browser_telemetry: { browser: { console: { enabled: true } } } });

    await t.client.auth.connections.login(c.id);
    let state = await stepWith(c.id, 'identifier');
    const sessionId = state.browser_session_id!;
    expect(sessionId).toBeTruthy();
    // While the flow runs its session is being recorded.
    const live = await t.client.browsers.replays.list(sessionId);
    expect(live).toHaveLength(1);
    const [entry] = (await t.client.auth.connections.timeline(c.id)).items;
    expect(entry).toMatchObject({ type: 'login', browser_session_id: sessionId, replay_id: live[0].replay_id, telemetry_captured: true });

    await t.client.auth.connections.submit(c.id, { fields: { email: 'ann@example.test' } });
    await stepWith(c.id, 'password');
    await t.client.auth.connections.submit(c.id, { fields: { password: 'correct horse' } });
    state = await finished(c.id);
    expect(state).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });

    // After the flow: the session is gone, the replay is downloadable as an MP4.
    const replayId = live[0].replay_id;
    const res = await pollUntil(
      'finished replay',
      () => t.client.browsers.replays.download(replayId, { id: sessionId }),
      (r) => r.status === 200,
    );
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const mp4 = Buffer.from(await res.arrayBuffer());
    expect(mp4.length).toBeGreaterThan(1000);
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const [done] = await t.client.browsers.replays.list(sessionId);
    expect(done.finished_at).toBeTruthy();

    // The site logs on every page: the flow session's console telemetry saw the login pages.
    const logs = await consoleTexts(sessionId);
    expect(logs.some((l) => l.includes('login-site page /login'))).toBe(true);
    expect(logs.some((l) => l.includes('login-site page /login/password'))).toBe(true);
  });

  it('lets the login body override both: no replay, telemetry off', async () => {
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'norec-profile',
      login_url: site.loginUrl,
      health_checks: false,
      record_session: true,
      browser_telemetry: { browser: { console: { enabled: true } } },
    });
    await t.client.auth.connections.login(c.id, { record_session: false, browser_telemetry: null });
    const state = await stepWith(c.id, 'identifier');
    const sessionId = state.browser_session_id!;
    const session = await t.client.browsers.retrieve(sessionId);
    expect(session.telemetry?.browser?.console?.enabled).toBe(false);
    expect(await t.client.browsers.replays.list(sessionId)).toEqual([]);
    const [entry] = (await t.client.auth.connections.timeline(c.id)).items;
    expect(entry.replay_id).toBeUndefined();
    expect(entry.telemetry_captured).toBe(false);
    expect(await consoleTexts(sessionId)).toEqual([]);
    await t.client.auth.connections.delete(c.id); // cancels the flow
  });

  it('rejects a telemetry config the session would refuse, on create, patch and login', async () => {
    // (An unknown category would be accepted and ignored: newer SDKs send categories this engine lacks.)
    const bad = { domain: '127.0.0.1', profile_name: 'bad-tel', browser_telemetry: { browser: { console: { enabled: 'on' } } } };
    expect((await t.api('/auth/connections', { method: 'POST', json: bad })).status).toBe(400);
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'bad-tel', login_url: site.loginUrl, health_checks: false });
    const mixed = await t.api(`/auth/connections/${c.id}`, {
      method: 'PATCH',
      json: { browser_telemetry: { enabled: false, browser: { console: { enabled: true } } } },
    });
    expect(mixed.status).toBe(400);
    expect(JSON.stringify(await mixed.json())).toContain('browser_telemetry');
    expect((await t.api(`/auth/connections/${c.id}/login`, { method: 'POST', json: { record_session: 'yes' } })).status).toBe(400);
    expect(
      (await t.api(`/auth/connections/${c.id}/login`, { method: 'POST', json: { browser_telemetry: { browser: { console: { enabled: 'yes' } } } } })).status,
    ).toBe(400);
    expect((await retrieve(c.id)).flow_status).toBeNull(); // nothing started
  });
});
