/**
 * Slow people and slow sites. Login flows and health checks drive their browser straight over
 * CDP, which the idle freezer (issue 14: a session with no client for `freezeIdleSeconds` is
 * frozen) does not count as a client: a person who takes longer than that to type a password, or
 * a site slower than that to load, must not find the browser frozen under the page (freezing
 * after one session second here, a quarter of a real one: EngineOptions.sessionSecondMs). A site
 * slower to answer a submit than the flow's action timeout (5 s; 2 s here:
 * identity.flowActionTimeoutMs), and a page that moves on by itself after a submit seemed to do
 * nothing, are followed too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../helpers/poll-until.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLoginSite, type LoginSite } from '../../helpers/login-site.js';

const FREEZE_IDLE_SECONDS = 1;
/** One session second lasts this long: the freezer (and the sessions' inactivity timeouts) run 4x faster. */
const SECOND_MS = 250;
/** Three freeze delays: by then a browser nobody holds thawed is frozen. */
const PAST_FREEZE_MS = FREEZE_IDLE_SECONDS * SECOND_MS * 3;
/** The flow's submit timeout here; the slow site answers a submit twice as late. */
const ACTION_TIMEOUT_MS = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestEngine;
let site: LoginSite;
beforeAll(async () => {
  site = await startLoginSite({
    'ann@example.test': { password: 'correct horse' },
    'cat@example.test': { password: 'slow check', checkingMs: 2000 },
  });
  // The flow TTL stays the default 600 s: a flow's session lasts TTL + 60 session seconds, 165 s here.
  t = await startTestEngine({
    freezeIdleSeconds: FREEZE_IDLE_SECONDS,
    sessionSecondMs: SECOND_MS,
    identity: { minHealthCheckIntervalSeconds: 1, flowActionTimeoutMs: ACTION_TIMEOUT_MS },
  });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

const awaitingInput = (id: string) =>
  pollUntil(
    'AWAITING_INPUT',
    () => t.client.auth.connections.retrieve(id),
    (c) => c.flow_step === 'AWAITING_INPUT' || c.flow_status !== 'IN_PROGRESS',
  );

/** The flow asks for the password (or ended): bounded by attempts, up to a minute. */
const passwordStep = (id: string) =>
  pollUntil(
    'the password step',
    () => t.client.auth.connections.retrieve(id),
    (x) => (x.flow_step === 'AWAITING_INPUT' && !!x.fields?.some((f) => f.type === 'password')) || x.flow_status !== 'IN_PROGRESS',
    300,
  );
const flowEnd = (id: string) =>
  pollUntil(
    'flow end',
    () => t.client.auth.connections.retrieve(id),
    (x) => x.flow_status !== 'IN_PROGRESS',
  );

describe('login flows and health checks with idle freezing on', { timeout: 180_000 }, () => {
  it('a person slower than the freeze delay still signs in; a slow site is still checked', async () => {
    const sessions = t.engine.services.sessions;
    const c = await t.client.auth.connections.create({
      domain: '127.0.0.1',
      profile_name: 'slow-typist',
      login_url: site.loginUrl,
      health_check_interval: 3600,
    });
    await t.client.auth.connections.login(c.id);
    let state = await awaitingInput(c.id);
    const flowSession = sessions.get(state.browser_session_id!)!;
    expect(flowSession).toBeDefined();

    // The person reads the page for a while: far past the freeze delay.
    await sleep(PAST_FREEZE_MS);
    expect(flowSession.frozen).toBe(false);
    await t.client.auth.connections.submit(c.id, { fields: { email: 'ann@example.test' } });
    state = await awaitingInput(c.id);
    expect(state.fields?.map((f) => f.type)).toEqual(['password']);
    await sleep(PAST_FREEZE_MS);
    expect(flowSession.frozen).toBe(false);
    await t.client.auth.connections.submit(c.id, { fields: { password: 'correct horse' } });
    state = await flowEnd(c.id);
    expect(state, JSON.stringify(state)).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });

    // A health check on a site that answers slower than the freeze delay: its page still loads
    // (a frozen browser never finishes it, and the check would time out).
    site.delays.set('GET /', PAST_FREEZE_MS);
    const checkedBefore = (await t.client.auth.connections.timeline(c.id)).items.filter((e) => e.type === 'health_check').length;
    await t.client.auth.connections.update(c.id, { health_check_interval: 1 });
    const timeline = await pollUntil(
      'a health check',
      async () => (await t.client.auth.connections.timeline(c.id)).items.filter((e) => e.type === 'health_check'),
      (items) => items.length > checkedBefore,
      600,
    );
    await t.client.auth.connections.update(c.id, { health_checks: false });
    site.delays.clear();
    expect(timeline[0]).toMatchObject({ type: 'health_check', status: 'AUTHENTICATED' });
  });

  it('follows a site that answers a submit later than an action may take', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'slow-site', login_url: site.loginUrl, health_checks: false });
    await t.client.auth.connections.login(c.id);
    let state = await awaitingInput(c.id);
    expect(state.fields?.map((f) => f.type)).toEqual(['identifier']);
    // Before, the Enter key press itself waited for the next page to start loading, for the action's timeout at most: FAILED.
    site.delays.set('POST /login', ACTION_TIMEOUT_MS * 2);
    try {
      await t.client.auth.connections.submit(c.id, { fields: { email: 'ann@example.test' } });
      state = await passwordStep(c.id);
    } finally {
      site.delays.clear();
    }
    expect(state, JSON.stringify(state)).toMatchObject({ flow_status: 'IN_PROGRESS', flow_step: 'AWAITING_INPUT' });
    await t.client.auth.connections.submit(c.id, { fields: { password: 'correct horse' } });
    state = await flowEnd(c.id);
    expect(state, JSON.stringify(state)).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });
  });

  it('follows a page that moves on by itself while the flow waits for input', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'checking', login_url: site.loginUrl, health_checks: false });
    await t.client.auth.connections.login(c.id);
    await awaitingInput(c.id);
    // The site shows the email form again ("Checking your account…"), then its script goes to the password step.
    await t.client.auth.connections.submit(c.id, { fields: { email: 'cat@example.test' } });
    const state = await passwordStep(c.id);
    expect(state, JSON.stringify(state)).toMatchObject({ flow_status: 'IN_PROGRESS', flow_step: 'AWAITING_INPUT' });
    await t.client.auth.connections.submit(c.id, { fields: { password: 'slow check' } });
    const done = await flowEnd(c.id);
    expect(done, JSON.stringify(done)).toMatchObject({ flow_status: 'SUCCESS', status: 'AUTHENTICATED' });
  });

  it('submits again a key press the page never saw, and only that one', async () => {
    const c = await t.client.auth.connections.create({ domain: '127.0.0.1', profile_name: 'deaf-page', login_url: site.loginUrl, health_checks: false });
    site.swallowFirstKey = true;
    try {
      await t.client.auth.connections.login(c.id);
      await awaitingInput(c.id);
    } finally {
      site.swallowFirstKey = false;
    }
    const postsBefore = site.requests.filter((r) => r === 'POST /login').length;
    await t.client.auth.connections.submit(c.id, { fields: { email: 'ann@example.test' } });
    const state = await passwordStep(c.id);
    expect(state, JSON.stringify(state)).toMatchObject({ flow_status: 'IN_PROGRESS', flow_step: 'AWAITING_INPUT' });
    // The swallowed press was made again; the one the page saw was not (one POST).
    expect(site.requests.filter((r) => r === 'POST /login').length - postsBefore).toBe(1);
  });
});
