/**
 * Telemetry sees a new session's very first page load: with console/network/page telemetry and
 * a `start_url`, the browser starts on about:blank, the collector attaches and enables its CDP
 * domains, and only then is the start page opened — before `POST /browsers` answers — so the
 * history holds that page's navigation, its document and sub-resource requests/responses and a
 * console line it logs while loading, with no reload or warm-up. Sessions that record no page
 * loads keep `start_url` on Chromium's command line; an unreachable start page does not fail
 * the create; pooled browsers take the same path, also when the acquire itself turns load
 * telemetry on with a start_url; the create awaits async start listeners.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import type { SessionManager } from '../../../src/engine/domain/sessions/session-manager.js';
import { collect, type Envelope } from './telemetry-helpers.js';

const FIRST = `<!doctype html><html><head><title>first load</title>
<script>console.log('first-load-marker')</script>
<script src="/asset.js"></script></head><body>first</body></html>`;

const LOAD_CATEGORIES = { console: { enabled: true }, network: { enabled: true }, page: { enabled: true } };

let te: TestEngine;
let site: LocalServer;
/** Requests the site served, by path (with query). */
const hits = new Map<string, number>();

beforeAll(async () => {
  site = await startLocalServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    hits.set(u.pathname + u.search, (hits.get(u.pathname + u.search) ?? 0) + 1);
    if (u.pathname === '/asset.js') {
      res.writeHead(200, { 'content-type': 'application/javascript' });
      return res.end('window.assetRan = true;');
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(FIRST);
  });
  te = await startTestEngine();
}, 60_000);

afterAll(async () => {
  await te?.stop();
  await site?.close();
});

const sessions = () => te.engine.services.sessions as SessionManager;

/** The URL Chromium was given on its command line (its last argument). */
function commandLineUrl(id: string): string {
  const pid = sessions().get(id)?.browser?.pid;
  if (!pid) throw new Error(`session ${id} has no browser`);
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).at(-1)!;
}

/** Every retained event of a session, read through the paged history endpoint. */
async function history(id: string): Promise<Envelope[]> {
  const out: Envelope[] = [];
  for await (const e of te.client.browsers.telemetry.events(id, { limit: 1000 })) out.push(e as unknown as Envelope);
  return out;
}

/** Checks that the history holds the whole first load of `url` (which serves FIRST). */
function expectFirstLoad(events: Envelope[], url: string): void {
  const ev = events.map((e) => e.event);
  const firstNav = ev.find((e) => e.type === 'page_navigation');
  expect(firstNav?.data?.url).toBe(url);
  const docs = ev.filter((e) => e.type === 'network_request' && e.data?.url === url);
  expect(docs).toHaveLength(1);
  expect(docs[0].data).toMatchObject({ method: 'GET', resource_type: 'Document' });
  expect(ev.some((e) => e.type === 'network_response' && e.data?.request_id === docs[0].data?.request_id && e.data?.status === 200)).toBe(true);
  const asset = ev.find((e) => e.type === 'network_request' && e.data?.url === new URL('/asset.js', url).href);
  expect(asset?.data).toMatchObject({ method: 'GET', resource_type: 'Script' });
  expect(ev.find((e) => e.type === 'network_response' && e.data?.request_id === asset?.data?.request_id)?.data).toMatchObject({
    status: 200,
    mime_type: 'application/javascript',
  });
  const marker = ev.find((e) => e.type === 'console_log' && e.data?.text === 'first-load-marker');
  expect(marker?.data).toMatchObject({ level: 'log', url });
  expect(ev.some((e) => e.type === 'page_dom_content_loaded' && e.data?.url === url)).toBe(true);
  expect(ev.some((e) => e.type === 'page_load' && e.data?.url === url)).toBe(true);
}

describe('telemetry of the first page load', () => {
  it('records the start page of a new session from its first request, loaded once', async () => {
    const startUrl = `${site.url}/first?case=session`;
    // A slow async start listener (well within the bound): the create must wait for it before it answers.
    let listenerDone = false;
    const off = sessions().onSessionStart(async () => {
      await new Promise((r) => setTimeout(r, 500));
      listenerDone = true;
    });
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 120, start_url: startUrl, telemetry: { browser: LOAD_CATEGORIES } });
    off();
    try {
      expect(listenerDone).toBe(true);
      // Chromium started on about:blank; the engine opened start_url once the collector was watching.
      expect(commandLineUrl(s.session_id)).toBe('about:blank');
      // The SSE stream with replay=all shows the load from its start (it completes in the background).
      const stream = collect(await te.client.browsers.telemetry.stream(s.session_id, { replay: 'all' }));
      await stream.until((e) => e.event.type === 'page_load' && e.event.data?.url === startUrl);
      expectFirstLoad(stream.events, startUrl);
      expectFirstLoad(await history(s.session_id), startUrl);
      expect(hits.get('/first?case=session')).toBe(1);
    } finally {
      await te.client.browsers.deleteByID(s.session_id);
    }
  });

  it('keeps start_url on the command line for a session that records no page loads', async () => {
    const startUrl = `${site.url}/first?case=plain`;
    // Default telemetry (control, connection, system, captcha): nothing that needs the first load.
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 120, start_url: startUrl });
    try {
      expect(commandLineUrl(s.session_id)).toBe(startUrl);
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        const page = browser.contexts()[0].pages()[0];
        await page.waitForURL(startUrl);
        await page.waitForFunction(() => (window as unknown as { assetRan?: boolean }).assetRan === true);
      } finally {
        await browser.close();
      }
      expect((await te.client.browsers.retrieve(s.session_id)).session_id).toBe(s.session_id);
      expect(hits.get('/first?case=plain')).toBe(1);
    } finally {
      await te.client.browsers.deleteByID(s.session_id);
    }
  });

  it('still starts the session when the start page cannot be reached', async () => {
    const closed = await startLocalServer({});
    const deadUrl = `${closed.url}/nothing-listens-here`;
    await closed.close();
    const s = await te.client.browsers.create({ headless: true, timeout_seconds: 120, start_url: deadUrl, telemetry: { browser: LOAD_CATEGORIES } });
    try {
      expect(commandLineUrl(s.session_id)).toBe('about:blank');
      const stream = collect(await te.client.browsers.telemetry.stream(s.session_id, { replay: 'all' }));
      const failed = await stream.until((e) => e.event.type === 'network_loading_failed');
      expect(String(failed.event.data?.error_text)).toContain('ERR_CONNECTION_REFUSED');
      expect(stream.events.find((e) => e.event.type === 'network_request')?.event.data?.url).toBe(deadUrl);
      // The session runs and is usable (Chromium shows its error page, as with a command-line URL).
      expect(sessions().get(s.session_id)).toBeDefined();
      const browser = await chromium.connectOverCDP(s.cdp_ws_url);
      try {
        expect(browser.contexts()[0].pages()).toHaveLength(1);
      } finally {
        await browser.close();
      }
    } finally {
      await te.client.browsers.deleteByID(s.session_id);
    }
  });

  it('records the first load of a pooled browser started with the pool start_url and telemetry', async () => {
    const startUrl = `${site.url}/first?case=pool`;
    await te.client.browserPools.create({
      name: 'first-load',
      size: 1,
      headless: true,
      fill_rate_per_minute: 100,
      timeout_seconds: 120,
      start_url: startUrl,
      telemetry: { browser: LOAD_CATEGORIES },
    });
    try {
      const s = await te.client.browserPools.acquire('first-load', { acquire_timeout_seconds: 60 });
      expect(s).toBeTruthy();
      const id = s!.session_id;
      expect(commandLineUrl(id)).toBe('about:blank');
      const stream = collect(await te.client.browsers.telemetry.stream(id, { replay: 'all' }));
      await stream.until((e) => e.event.type === 'page_load' && e.event.data?.url === startUrl);
      expectFirstLoad(await history(id), startUrl);
      expect(hits.get('/first?case=pool')).toBe(1);
    } finally {
      await te.client.browserPools.delete('first-load', { force: true });
    }
  });

  it('records the first load when a pool acquire itself turns load telemetry on and passes a start_url', async () => {
    const startUrl = `${site.url}/first?case=acquire`;
    await te.client.browserPools.create({ name: 'acquire-telemetry', size: 1, headless: true, fill_rate_per_minute: 100, timeout_seconds: 120 });
    try {
      // The acquire applies the telemetry change (the collector enables its domains) before it
      // opens start_url, so the page's own load is recorded from its first request.
      const s = await te.client.browserPools.acquire('acquire-telemetry', {
        acquire_timeout_seconds: 60,
        start_url: startUrl,
        telemetry: { browser: LOAD_CATEGORIES },
      });
      expect(s).toBeTruthy();
      const id = s!.session_id;
      const stream = collect(await te.client.browsers.telemetry.stream(id, { replay: 'all' }));
      await stream.until((e) => e.event.type === 'page_load' && e.event.data?.url === startUrl);
      expectFirstLoad(await history(id), startUrl);
      expect(hits.get('/first?case=acquire')).toBe(1);
    } finally {
      await te.client.browserPools.delete('acquire-telemetry', { force: true });
    }
  });

  it('records the whole first load of an acquire whose idle browser has no tab at all', async () => {
    // A browser without a tab is what the collector meets when the acquire comes right after
    // the pool launched it (Chromium is still opening its first tab); closing the tabs makes
    // that moment last. The acquire opens the tab before the collector connects.
    const before = new Set(
      sessions()
        .all()
        .map((r) => r.id),
    );
    const startUrl = `${site.url}/first?case=no-tab`;
    await te.client.browserPools.create({ name: 'no-tab', size: 1, headless: true, fill_rate_per_minute: 100, timeout_seconds: 120 });
    try {
      let idle: ReturnType<SessionManager['all']>[number] | undefined;
      for (let i = 0; i < 200 && !idle?.browser; i++) {
        idle = sessions()
          .all()
          .find((r) => !before.has(r.id));
        if (!idle?.browser) await new Promise((r) => setTimeout(r, 50));
      }
      const control = idle!.browser!.control;
      const pages = async () => (await control.send('Target.getTargets')).targetInfos.filter((t) => t.type === 'page');
      for (let i = 0; i < 100; i++) {
        const open = await pages();
        if (open.length === 0 && i > 0) break;
        for (const p of open) await control.send('Target.closeTarget', { targetId: p.targetId }).catch(() => {});
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await pages()).toHaveLength(0);
      const s = await te.client.browserPools.acquire('no-tab', { acquire_timeout_seconds: 60, start_url: startUrl, telemetry: { browser: LOAD_CATEGORIES } });
      expect(s?.session_id).toBe(idle!.id);
      const stream = collect(await te.client.browsers.telemetry.stream(s!.session_id, { replay: 'all' }));
      await stream.until((e) => e.event.type === 'page_load' && e.event.data?.url === startUrl);
      expectFirstLoad(await history(s!.session_id), startUrl);
      expect(hits.get('/first?case=no-tab')).toBe(1);
    } finally {
      await te.client.browserPools.delete('no-tab', { force: true });
    }
  });
});
