/**
 * Shared pieces of the session-pane end-to-end tests: a local site the session's browser can
 * reach (a page counting clicks, a page logging to the console, a JSON endpoint), a headless
 * session created with the official client, and a helper opening one pane of it in the console.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator } from 'playwright-core';
import type { Console } from './console-harness.js';

export interface LocalSite {
  url: string;
  clicks: number;
  close(): Promise<void>;
}

const CLICK_PAGE = `<!doctype html><title>click counter</title>
<body style="margin:0;background:#2f5bea;color:#fff;font:bold 48px sans-serif">
<button id="b" style="position:fixed;inset:0;width:100%;height:100%;background:#2f5bea;color:#fff;border:0;font:inherit">clicks: 0</button>
<script>let n=0;document.getElementById('b').onclick=()=>{n++;document.getElementById('b').textContent='clicks: '+n;fetch('/clicked',{method:'POST'});};</script>`;

const CONSOLE_PAGE = `<!doctype html><title>console ticker</title><body><h1>ticking</h1>
<script>let i=0;setInterval(()=>console.log('tick-marker-'+(++i)),300);</script>`;

export async function startLocalSite(): Promise<LocalSite> {
  const site = { url: '', clicks: 0, close: async () => {} } as LocalSite;
  const server = http.createServer((req, res) => {
    if (req.url === '/clicked') {
      site.clicks++;
      res.writeHead(204).end();
    } else if (req.url === '/click') res.writeHead(200, { 'content-type': 'text/html' }).end(CLICK_PAGE);
    else if (req.url === '/console') res.writeHead(200, { 'content-type': 'text/html' }).end(CONSOLE_PAGE);
    else if (req.url?.startsWith('/json'))
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-test-header': 'pane-test' })
        .end(JSON.stringify({ ok: true, items: [1, 2, 3], method: req.method }));
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  site.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () => new Promise<void>((r) => server.close(() => r()));
  return site;
}

/** A headless session (real Chromium) with a long inactivity timeout. */
export async function createSession(c: Console, body: Record<string, unknown> = {}): Promise<{ session_id: string }> {
  return c.te.client.browsers.create({ headless: true, timeout_seconds: 600, viewport: { width: 1024, height: 768 }, ...body });
}

/** Signs in (once per page) and shows `#/sessions/<id>/<tab>`. */
export async function openPane(c: Console, sessionId: string, tab: string, title: string): Promise<void> {
  c.page.setDefaultTimeout(90_000);
  if (process.env.PANES_DEBUG) c.page.on('pageerror', (e) => console.log('PAGEERROR', e.message, e.stack));
  if (!(await c.page.getByRole('navigation', { name: 'Main' }).count())) await c.signIn();
  await c.page.goto(`${c.te.url}/#/sessions/${sessionId}/${tab}`);
  await c.page.getByRole('tab', { name: title, selected: true }).waitFor({ timeout: 30_000 });
}

/**
 * Per-test budget: generous because the machine is shared and loaded (a curl or a code run
 * can wait a long time for CPU); correctness never depends on being fast.
 */
export const TEST_TIMEOUT = 300_000;

/**
 * Waits (long: the machine is loaded) for `locator` to show; if an error toast appears instead,
 * fails at once with the server's message so the failure says what happened.
 */
export async function shown(c: Console, locator: Locator, timeout = Number(process.env.PANES_WAIT_MS ?? 240_000)): Promise<void> {
  const toasts = c.page.locator('.toast-error');
  const before = await toasts.count();
  const outcome = await Promise.race([
    locator
      .first()
      .waitFor({ timeout })
      .then(() => 'ok' as const),
    toasts
      .nth(before)
      .waitFor({ timeout })
      .then(() => 'toast' as const),
  ]).catch(async (err) => {
    await c.screenshot('failed-wait');
    throw err;
  });
  if (outcome === 'toast') throw new Error(`the UI reported an error instead: ${await toasts.nth(before).textContent()}`);
}
