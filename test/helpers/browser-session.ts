/**
 * A session created through the official client with Playwright connected over its
 * `cdp_ws_url` and its first page at hand: the setup most Chromium tests start with.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestEngine } from './engine.js';

export interface BrowserSession {
  id: string;
  session: Awaited<ReturnType<TestEngine['client']['browsers']['create']>>;
  browser: Browser;
  page: Page;
}

/** Creates a headless session (`body` overrides) and connects Playwright; close `browser` when done. */
export async function openBrowserSession(te: TestEngine, body: Parameters<TestEngine['client']['browsers']['create']>[0] = {}): Promise<BrowserSession> {
  const session = await te.client.browsers.create({ headless: true, timeout_seconds: 300, ...body });
  const browser = await chromium.connectOverCDP(session.cdp_ws_url);
  const context = browser.contexts()[0];
  const page = context.pages()[0] ?? (await context.newPage());
  return { id: session.session_id, session, browser, page };
}

/** A request through the session's browser (the curl API): its status, or its Chromium net error name. */
export async function curlVia(te: TestEngine, sessionId: string, url: string): Promise<{ status?: number; netError?: string }> {
  try {
    const r = await te.client.browsers.curl(sessionId, { url });
    return { status: r.status };
  } catch (e) {
    const err = (e as { error?: { net_error_name?: string } }).error;
    return { netError: err?.net_error_name ?? String(e) };
  }
}
