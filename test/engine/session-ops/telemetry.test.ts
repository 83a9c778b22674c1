/**
 * Telemetry from a real headless session through the official client: console, network,
 * page, interaction and captcha events from a local page, control events for API calls,
 * connection events from a Playwright CDP client, and the stream reached through the
 * client's direct-to-session routing (`{base_url}/telemetry/stream?jwt=`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { collect, startSite, type Envelope } from './telemetry-helpers.js';

const CAPTCHA_PAGE = `<!doctype html><html><body><div class="g-recaptcha" data-sitekey="x"></div>
<textarea name="g-recaptcha-response" style="display:none"></textarea>
<button id="solve" style="position:absolute;left:10px;top:100px;width:100px;height:40px"
  onclick="document.querySelector('[name=g-recaptcha-response]').value='token-123'">solve</button></body></html>`;

let te: TestEngine;
let site: Awaited<ReturnType<typeof startSite>>;
let id: string;
let s: ReturnType<typeof collect>;

beforeAll(async () => {
  site = await startSite({ '/captcha': CAPTCHA_PAGE });
  te = await startTestEngine();
  const session = await te.client.browsers.create({
    headless: true,
    timeout_seconds: 300,
    viewport: { width: 800, height: 600 },
    telemetry: { browser: { console: { enabled: true }, network: { enabled: true }, page: { enabled: true }, interaction: { enabled: true } } },
  });
  id = session.session_id;
  s = collect(await te.client.browsers.telemetry.stream(id));
}, 60_000);

afterAll(async () => {
  await te?.client.browsers.deleteByID(id).catch(() => {});
  await te?.stop();
  await site?.close();
});

describe('telemetry from a real browser', () => {
  it('reports CDP connections, console, network and page events of a local page', async () => {
    const browser: Browser = await chromium.connectOverCDP((await te.client.browsers.retrieve(id)).cdp_ws_url);
    const connect = await s.until((e) => e.event.type === 'cdp_connect');
    expect(connect.event).toMatchObject({ category: 'connection', source: { kind: 'kernel_api' } });
    const page = browser.contexts()[0].pages()[0];
    // browsers.create answers only once the collector watches the first tab with its CDP domains
    // on (the session records page loads), so the first navigation is seen from its first request.
    const mark = connect.seq;
    const until = (pred: (e: Envelope) => boolean) => s.until((e) => e.seq > mark && pred(e));
    await page.goto(site.url + '/');

    const log = await until((e) => e.event.type === 'console_log' && String(e.event.data?.text).includes('hello from page'));
    expect(log.event.category).toBe('console');
    expect(log.event.data).toMatchObject({ level: 'log', url: site.url + '/', target_type: 'page' });
    expect(log.event.data!.args).toEqual(['hello from page', 42, { a: 1 }]);
    const err = await until((e) => e.event.type === 'console_error' && String(e.event.data?.text).includes('bad thing'));
    expect(err.event.data?.level).toBe('error');
    const exc = await until((e) => e.event.type === 'console_error' && String(e.event.data?.text).includes('boom in page'));
    const stack = exc.event.data?.stack_trace as { callFrames?: { functionName: string }[] } | undefined;
    expect(stack?.callFrames?.[0]?.functionName).toBe('thrower');
    expect(exc.event.source.event).toBe('Runtime.exceptionThrown');

    const req = await until((e) => e.event.type === 'network_request' && String(e.event.data?.url).endsWith('/data.json'));
    expect(req.event.data).toMatchObject({ method: 'GET', resource_type: 'Fetch' });
    const res = await until((e) => e.event.type === 'network_response' && e.event.data?.request_id === req.event.data?.request_id);
    expect(res.event.data).toMatchObject({ status: 200, mime_type: 'application/json' });
    await until((e) => e.event.type === 'network_idle');

    const nav = await until((e) => e.event.type === 'page_navigation' && e.event.data?.url === site.url + '/');
    expect(nav.event.category).toBe('page');
    await until((e) => e.event.type === 'page_dom_content_loaded');
    await until((e) => e.event.type === 'page_load');
    await until((e) => e.event.type === 'page_layout_settled');
    await until((e) => e.event.type === 'page_navigation_settled');

    // Sequence numbers are strictly increasing, timestamps are Unix microseconds.
    const seqs = s.events.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(Math.abs(log.event.ts / 1000 - Date.now())).toBeLessThan(600_000);

    // Interaction: a computer click on the button reaches the page script.
    await te.client.browsers.computer.clickMouse(id, { x: 60, y: 50 });
    const click = await until((e) => e.event.type === 'interaction_click');
    expect(click.event.data).toMatchObject({ tag: 'button', selector: '#go', text: 'Press me', x: 60, y: 50 });
    const call = await until((e) => e.event.type === 'api_call' && String(e.event.data?.operation_id).includes('click_mouse'));
    expect(call.event).toMatchObject({ category: 'control', source: { kind: 'kernel_api' } });
    expect(call.event.data).toMatchObject({ status: expect.any(Number) });
    expect(call.event.data!.status).toBeLessThan(300);
    expect(typeof call.event.data!.request_id).toBe('string');
    expect(call.event.data!.duration_ms).toBeGreaterThanOrEqual(0);

    await te.client.browsers.computer.typeText(id, { text: 'ab' });
    const key = await until((e) => e.event.type === 'interaction_key' && e.event.data?.key === 'b');
    expect(key.event.category).toBe('interaction');

    await browser.close();
    const gone = await until((e) => e.event.type === 'cdp_disconnect');
    expect(gone.event.data).toMatchObject({ reason: 'client_close' });
    expect(gone.event.data!.message_count).toBeGreaterThan(0);
    expect(gone.event.data!.duration_ms).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('detects a captcha and reports its result when the token appears', async () => {
    const browser = await chromium.connectOverCDP((await te.client.browsers.retrieve(id)).cdp_ws_url);
    const page = browser.contexts()[0].pages()[0];
    await page.goto(site.url + '/captcha');
    const found = await s.until((e) => e.event.type === 'captcha_detected');
    expect(found.event.data).toMatchObject({ captcha_type: 'recaptcha_v2', website_path: '/captcha' });
    await page.click('#solve');
    const result = await s.until((e) => e.event.type === 'captcha_solve_result');
    expect(result.event.data).toMatchObject({ captcha_type: 'recaptcha_v2', status: 'success', website_path: '/captcha' });
    // A second visit left unsolved is abandoned when the page navigates away.
    await page.goto(site.url + '/captcha');
    await s.until((e) => e.event.type === 'captcha_detected' && e.seq > found.seq);
    await page.goto(site.url + '/');
    const abandoned = await s.until((e) => e.event.type === 'captcha_solve_result' && e.event.data?.status === 'abandoned');
    expect(abandoned.event.category).toBe('captcha');
    await browser.close();
  }, 120_000);

  it('closes the stream when the session ends', async () => {
    await te.client.browsers.deleteByID(id);
    await s.ended;
    expect(s.events.length).toBeGreaterThan(0);
  }, 60_000);

  it('the stream went to the session base_url with its JWT (direct-to-session routing)', async () => {
    const entries = async () => {
      const page = await te.client.auditLogs.list({
        start: new Date(Date.now() - 600_000).toISOString(),
        end: new Date(Date.now() + 60_000).toISOString(),
        auth_strategy: 'session_jwt',
      });
      return page.getPaginatedItems().filter((e) => e.path.startsWith(`/browsers/${id}/telemetry/stream?jwt=`) && e.method === 'GET');
    };
    await expect.poll(async () => (await entries()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await entries())[0]).toMatchObject({ auth_strategy: 'session_jwt', status: 200 });
  });
});
