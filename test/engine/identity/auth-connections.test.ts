/**
 * Managed login against a real login website and real Chromium: discovery, fields, wrong
 * password, SMS code, TOTP from a stored credential, health check → NEEDS_AUTH → automatic
 * re-login, deletion during a flow, a later session on the profile being logged in, and expiry.
 * One engine for all: its flows expire when a test fires their timer (identity.flowTimers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLoginSite, type LoginSite } from '../../helpers/login-site.js';
import { startTestProxy, type TestProxy } from '../../helpers/test-proxy.js';
import { encodeBase32 } from '../../../src/engine/domain/credentials/totp.js';
import type { SessionRegistry } from '../../../src/engine/runtime/session/session-handle.js';
import { ManualTimers } from '../../helpers/manual-timers.js';

const TOTP_SECRET = encodeBase32(Buffer.from('browserdeck-totp-secret!'));
let t: TestEngine;
let site: LoginSite;
let proxy: TestProxy;
/** Login flows' TTL timers: no flow expires unless a test fires its timer. */
const flowTimers = new ManualTimers();

beforeAll(async () => {
  site = await startLoginSite({
    'ann@example.test': { password: 'correct horse' },
    'sam@example.test': { password: 'sms-pass', mfa: 'sms' },
    'tom@example.test': { password: 'totp-pass', mfa: 'totp', totpSecret: TOTP_SECRET },
  });
  proxy = await startTestProxy();
  t = await startTestEngine({ identity: { minHealthCheckIntervalSeconds: 1, authFlowTtlSeconds: FLOW_TTL_SECONDS, flowTimers } });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
  await proxy?.close();
});

/** What flows report as their expiry (their timers run on flowTimers). */
const FLOW_TTL_SECONDS = 120;
/**
 * As long as a flow would live on real timers (FLOW_TTL_SECONDS): under load (CI-20, -22, -25)
 * a flow of three steps, each allowed 15 s to settle, was still at its first step when 30 s of
 * polling gave up.
 */
const FLOW_POLLS = 150 * 5;
const awaitingInput = (id: string) =>
  pollUntil(
    'AWAITING_INPUT',
    () => t.client.auth.connections.retrieve(id),
    (c) => c.flow_step === 'AWAITING_INPUT' || c.flow_status !== 'IN_PROGRESS',
    FLOW_POLLS,
  );
const finished = (id: string) =>
  pollUntil(
    'flow end',
    () => t.client.auth.connections.retrieve(id),
    (c) => c.flow_status !== 'IN_PROGRESS' && c.flow_status !== null,
    FLOW_POLLS,
  );

async function pageShowsSignedIn(profile: string): Promise<string> {
  const s = await t.client.browsers.create({ headless: true, profile: { name: profile } });
  const b = await chromium.connectOverCDP(s.cdp_ws_url);
  try {
    const page = b.contexts()[0].pages()[0] ?? (await b.contexts()[0].newPage());
    await page.goto(site.url + '/');
    return (await page.textContent('body')) ?? '';
  } finally {
    await b.close();
    await t.client.browsers.deleteByID(s.session_id);
  }
}

// As long as the waits above (a flow's whole life) and the second flow a test may run after it.
describe('auth connections', { timeout: 300_000 }, () => {
  it('creates (profile auto-created), conflicts, lists, patches only given fields', async () => {
    const c = await t.client.auth.connections.create({ domain: 'Example.TEST', profile_name: 'crud-profile', login_url: 'https://example.test/login' });
    expect(c).toMatchObject({
      domain: 'example.test',
      profile_name: 'crud-profile',
      status: 'NEEDS_AUTH',
      health_checks: true,
      auto_reauth: true,
      save_credentials: true,
      record_session: false,
      health_check_interval: 3600,
      can_reauth: false,
      can_reauth_reason: 'no_prior_successful_login',
      flow_status: null,
    });
    expect((await t.client.profiles.retrieve('crud-profile')).name).toBe('crud-profile');

    const dup = await t.api('/auth/connections', { method: 'POST', json: { domain: 'example.test', profile_name: 'crud-profile' } });
    expect(dup.status).toBe(409);
    expect(dup.headers.get('x-should-retry')).toBe('false');

    const same = await t.client.auth.connections.update(c.id, {});
    expect(same).toMatchObject({ login_url: 'https://example.test/login', health_check_interval: 3600 });
    const patched = await t.client.auth.connections.update(c.id, { health_check_interval: 7200, allowed_domains: ['login.example.test'], login_url: '' });
    expect(patched).toMatchObject({ health_check_interval: 7200, allowed_domains: ['login.example.test'], auto_reauth: true });
    expect(patched.login_url).toBeUndefined();
    await expect(t.client.auth.connections.update(c.id, { health_check_interval: 100000 })).rejects.toMatchObject({ status: 400 });

    await t.client.auth.connections.create({ domain: 'other.test', profile_name: 'crud-profile' });
    expect((await t.client.auth.connections.list({ domain: 'example.test' })).items.map((x) => x.id)).toEqual([c.id]);
    expect((await t.client.auth.connections.list({ profile_name: 'crud-profile' })).items).toHaveLength(2);
    expect((await t.client.auth.connections.list({ query: 'OTHER' })).items.map((x) => x.domain)).toEqual(['other.test']);
    await t.client.auth.connections.delete(c.id);
    await expect(t.client.auth.connections.retrieve(c.id)).rejects.toMatchObject({ status: 404 });
  });

  it('logs in with fields step by step, reports the website error for a wrong password, saves profile and credential', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'ann-profile', login_url: site.loginUrl, health_checks: false });
    const events: Array<{ flow_status: string; flow_step: string }> = [];
    const stream = await t.client.auth.connections.follow(c.id);
    const reading = (async () => {
      for await (const e of stream) if ('flow_step' in e) events.push({ flow_status: e.flow_status, flow_step: e.flow_step });
    })();

    const login = await t.client.auth.connections.login(c.id);
    expect(login).toMatchObject({ id: c.id, flow_type: 'LOGIN' });
    expect(login.hosted_url).toContain(`/auth/connections/${c.id}/hosted?code=`);
    expect(login.live_view_url).toContain('/live');

    let state = await awaitingInput(c.id);
    expect(state.flow_status).toBe('IN_PROGRESS');
    expect(state.discovered_fields).toEqual([
      expect.objectContaining({ name: 'email', label: 'Email address', selector: '#email', type: 'email', required: true }),
    ]);
    expect(state.fields).toEqual([expect.objectContaining({ id: 'fld_email', type: 'identifier', ref: 'email' })]);
    expect(state.browser_session_id).toBeTruthy();

    // The hosted page shows what the site asks for, without an API key.
    const hosted = await fetch(login.hosted_url);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toContain('Email address');
    expect((await fetch(login.hosted_url.replace(/code=\w+/, 'code=wrong'))).status).toBe(404);

    await t.client.auth.connections.submit(c.id, { fields: { email: 'ann@example.test' } });
    state = await awaitingInput(c.id);
    expect(state.fields?.map((f) => f.type)).toEqual(['password']);

    await t.client.auth.connections.submit(c.id, { field_values: { fld_password: 'wrong' } });
    state = await pollUntil(
      'website error',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => !!x.website_error,
    );
    expect(state).toMatchObject({ flow_step: 'AWAITING_INPUT', website_error: 'Incorrect password. Please try again.' });

    await t.client.auth.connections.submit(c.id, { fields: { password: 'correct horse' } });
    state = await finished(c.id);
    expect(state).toMatchObject({
      flow_status: 'SUCCESS',
      flow_step: 'COMPLETED',
      status: 'AUTHENTICATED',
      can_reauth: true,
      credential: { name: 'ann-profile-127.0.0.1' },
    });
    await reading;
    expect(events[0]).toEqual({ flow_status: 'IN_PROGRESS', flow_step: 'DISCOVERING' });
    expect(events.map((e) => e.flow_step)).toEqual(expect.arrayContaining(['AWAITING_INPUT', 'SUBMITTING']));
    expect(events.at(-1)).toEqual({ flow_status: 'SUCCESS', flow_step: 'COMPLETED' });

    const cred = await t.client.credentials.retrieve('ann-profile-127.0.0.1');
    expect(cred.value_keys).toEqual(['email', 'password']);
    const timeline = await t.client.auth.connections.timeline(c.id);
    expect(timeline.items[0]).toMatchObject({ type: 'login', status: 'SUCCESS', step: 'COMPLETED' });

    // The flow browser is gone, and a new session on the profile is signed in.
    const sessions = t.engine.services.sessions as SessionRegistry;
    expect(sessions.get(state.browser_session_id ?? login.id)).toBeUndefined();
    expect(await pageShowsSignedIn('ann-profile')).toContain('Signed in as ann@example.test');
  });

  it('asks for an SMS code as a second step and knows it cannot re-login alone', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'sam-profile', login_url: site.loginUrl, health_checks: false });
    await t.client.auth.connections.login(c.id);
    await awaitingInput(c.id);
    await t.client.auth.connections.submit(c.id, { fields: { email: 'sam@example.test' } });
    await pollUntil(
      'password step',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => x.fields?.[0]?.type === 'password',
    );
    await t.client.auth.connections.submit(c.id, { fields: { password: 'sms-pass' } });
    const state = await pollUntil(
      'code step',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => x.fields?.[0]?.type === 'code',
    );
    expect(state.discovered_fields?.[0]).toMatchObject({ type: 'code', linked_mfa_type: 'sms', hint: expect.stringContaining('phone ending in 92') });
    // A person answers on the hosted page (a plain HTML form, no API key).
    const hostedUrl = state.hosted_url!;
    expect(await (await fetch(hostedUrl)).text()).toContain('Verification code');
    const posted = await fetch(hostedUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ 'field:code': site.smsCode('sam@example.test')! }).toString(),
    });
    expect(posted.status).toBe(303);
    const done = await finished(c.id);
    expect(done).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED', can_reauth: false, can_reauth_reason: 'requires_sms_code' });
  });

  it('logs in by itself with a stored credential including TOTP, and re-logs in after a health check finds the login lost', async () => {
    await t.client.credentials.create({
      name: 'tom-cred',
      domain: '127.0.0.1',
      values: { email: 'tom@example.test', password: 'totp-pass' },
      totp_secret: TOTP_SECRET,
    });
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'tom-profile',
      login_url: site.loginUrl,
      credential: { name: 'tom-cred' },
      health_check_interval: 3600,
    });
    await t.client.auth.connections.login(c.id);
    let state = await finished(c.id);
    // An EXPIRED flow's error_message says where it stopped.
    expect(state, `${state.flow_status}: ${state.error_message}`).toMatchObject({
      flow_status: 'SUCCESS',
      status: 'AUTHENTICATED',
      can_reauth: true,
      can_reauth_reason: 'requirements_satisfiable',
    });
    expect(site.signIns['tom@example.test']).toBe(1);

    // The site forgets every login; the next health check notices and re-authenticates.
    site.expireSessions();
    await t.client.auth.connections.update(c.id, { health_check_interval: 1 });
    const timeline = await pollUntil(
      'health check and re-auth',
      async () => (await t.client.auth.connections.timeline(c.id)).items,
      (items) => items.some((e) => e.type === 'health_check' && e.status === 'NEEDS_AUTH') && items.some((e) => e.type === 'reauth' && e.status === 'SUCCESS'),
    );
    await t.client.auth.connections.update(c.id, { health_checks: false });
    expect(timeline.find((e) => e.type === 'health_check' && e.status === 'NEEDS_AUTH')).toMatchObject({ previous_status: 'AUTHENTICATED' });
    // A health check that began before they were turned off may still be running: wait for it
    // to settle (a flow in progress, or one more re-login), then the connection is signed in.
    state = await pollUntil(
      'the connection settled',
      () => t.client.auth.connections.retrieve(c.id),
      (v) => v.flow_status !== 'IN_PROGRESS' && v.status === 'AUTHENTICATED',
    );
    expect(state).toMatchObject({ status: 'AUTHENTICATED', flow_type: 'REAUTH', flow_status: 'SUCCESS' });
    expect(site.signIns['tom@example.test']).toBeGreaterThanOrEqual(2);
    expect(await pageShowsSignedIn('tom-profile')).toContain('Signed in as tom@example.test');
  });

  it('deleting a connection during a flow cancels it and leaves no browser behind', async () => {
    const p = await t.client.proxies.create({ type: 'custom', name: 'flow-proxy', config: { host: '127.0.0.1', port: proxy.port } });
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'del-profile',
      login_url: site.loginUrl,
      proxy: { name: 'flow-proxy' },
    });
    expect(c.proxy_id).toBe(p.id);
    await t.client.auth.connections.login(c.id);
    const state = await awaitingInput(c.id);
    expect(proxy.targets()).toContain(site.loginUrl); // the flow's browser uses the connection's proxy
    const sessionId = state.browser_session_id!;
    const sessions = t.engine.services.sessions as SessionRegistry;
    expect(sessions.get(sessionId)).toBeDefined();
    await t.client.auth.connections.delete(c.id);
    expect(sessions.get(sessionId)).toBeUndefined();
    const s = await t.client.browsers.retrieve(sessionId, { include_deleted: true });
    expect(s.deleted_at).toBeTruthy();
    await expect(t.client.auth.connections.submit(c.id, { fields: { email: 'x' } })).rejects.toMatchObject({ status: 404 });
  });
});

describe('auth flow expiry', () => {
  /** Runs out the one flow in progress (every earlier flow ended and cancelled its timer). */
  function expireTheFlow(): void {
    expect(flowTimers.armed).toBe(1);
    flowTimers.fireNext();
  }

  it('expires a flow nobody finishes and ends its browser', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'exp-profile', login_url: site.loginUrl });
    const login = await t.client.auth.connections.login(c.id);
    expect(Date.parse(login.flow_expires_at) - Date.now()).toBeLessThanOrEqual(FLOW_TTL_SECONDS * 1000);
    await awaitingInput(c.id);
    expireTheFlow();
    const state = await pollUntil(
      'EXPIRED',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => x.flow_status === 'EXPIRED',
    );
    expect(state.flow_expires_at).toBeNull();
    expect(state.error_message).toMatch(/expired before it was completed \(it was waiting for input/);
    const [entry] = (await t.client.auth.connections.timeline(c.id)).items;
    expect(entry).toMatchObject({ type: 'login', status: 'EXPIRED', step: 'EXPIRED' });
    // The flow's browser is closed before EXPIRED is reported.
    const sessions = t.engine.services.sessions as SessionRegistry;
    expect(sessions.get(entry.browser_session_id!)).toBeUndefined();
    await expect(t.client.auth.connections.submit(c.id, { fields: { email: 'x' } })).rejects.toMatchObject({ status: 409 });
  });

  it('a flow that expires while its browser is still starting leaves no browser behind', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'exp-early', login_url: site.loginUrl });
    // The flow reports DISCOVERING, then asks for its browser in the same turn of the event loop:
    // the timer fired in the next turn lands while that browser starts (which takes far longer).
    const unsubscribe = t.engine.services.auth.flows.subscribe(c.id, () => {
      unsubscribe();
      setImmediate(expireTheFlow);
    });
    await t.client.auth.connections.login(c.id).catch(() => {});
    const state = await pollUntil(
      'EXPIRED',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => x.flow_status === 'EXPIRED',
    );
    expect(state.error_message).toMatch(/\(it was starting its browser\)/);
    const sessions = t.engine.services.sessions as SessionRegistry;
    const [entry] = (await t.client.auth.connections.timeline(c.id)).items;
    expect(entry.browser_session_id).toBeTruthy();
    expect(sessions.get(entry.browser_session_id!)).toBeUndefined();
    const running: string[] = [];
    for await (const b of t.client.browsers.list()) running.push(b.session_id);
    expect(running).toEqual([]);
  });

  it('a flow that ends before its browser is asked for starts none', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'exp-first', login_url: site.loginUrl });
    // Expired from inside its first state change, before the flow asks for its browser: as a
    // flow cancelled (its connection deleted, a new login) before it got that far.
    const unsubscribe = t.engine.services.auth.flows.subscribe(c.id, () => {
      unsubscribe();
      expireTheFlow();
    });
    // The login answers once the flow's start is over (a browser it asked for is up by then).
    await t.client.auth.connections.login(c.id).catch(() => {});
    await pollUntil(
      'EXPIRED',
      () => t.client.auth.connections.retrieve(c.id),
      (x) => x.flow_status === 'EXPIRED',
    );
    const [entry] = (await t.client.auth.connections.timeline(c.id)).items;
    expect(entry).toMatchObject({ status: 'EXPIRED' });
    expect(entry.browser_session_id).toBeUndefined();
    const running: string[] = [];
    for await (const b of t.client.browsers.list()) running.push(b.session_id);
    expect(running).toEqual([]);
  });
});
