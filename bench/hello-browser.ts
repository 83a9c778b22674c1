/**
 * BrowserArena's "hello-browser" session (github.com/nottelabs/browserarena,
 * src/benchmarks/hello-browser/run.ts), reproduced stage by stage so our figures read like
 * theirs: create (provider API) → Playwright `connectOverCDP` → first context/page + `goto`
 * with `waitUntil: 'domcontentloaded'` → release (provider API, timed in `finally`, also after
 * a failure). The total is the sum of the four stages of a successful session. Their loop:
 * 10 sequential warm-ups, then batches of `concurrency` sessions run together
 * (ceil(runs / concurrency) batches).
 */
import http from 'node:http';
import { chromium, type Browser } from 'playwright-core';

/** The page every session opens: a tiny HTML page on 127.0.0.1 (the engine needs `--egress-allow-loopback` to reach it). */
export async function serveHelloPage(): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_q, r) => r.end('<!doctype html><title>hello</title><p>hello browser</p>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => void server.close() };
}

export interface Provider {
  name: string;
  create(): Promise<{ id: string; cdpUrl: string }>;
  release(id: string): Promise<void>;
  /** Untimed work between batches (a pool refilling), so each batch starts from the same state. */
  settle?(): Promise<void>;
}

export interface SessionRecord {
  create: number;
  connect: number;
  goto: number;
  release: number;
  total: number;
  success: boolean;
  error?: string;
}

export async function helloBrowser(p: Provider, url: string): Promise<SessionRecord> {
  const r: SessionRecord = { create: NaN, connect: NaN, goto: NaN, release: NaN, total: NaN, success: false };
  let id: string | undefined;
  let browser: Browser | undefined;
  let stage = 'create';
  try {
    const t0 = performance.now();
    const s = await p.create();
    id = s.id;
    r.create = performance.now() - t0;
    stage = 'connect';
    const t1 = performance.now();
    browser = await chromium.connectOverCDP(s.cdpUrl);
    r.connect = performance.now() - t1;
    stage = 'goto';
    const t2 = performance.now();
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    r.goto = performance.now() - t2;
    r.success = true;
  } catch (err) {
    r.error = `${stage}: ${(err as Error).message.split('\n')[0].slice(0, 160)}`;
  } finally {
    if (id) {
      try {
        const t3 = performance.now();
        await p.release(id);
        r.release = performance.now() - t3;
      } catch (err) {
        r.success = false;
        r.error ??= `release: ${(err as Error).message.slice(0, 160)}`;
      }
    }
    // BrowserArena leaves the client connection to die with the session; we close it after the
    // timed release so the bench process does not pile up sockets.
    await browser?.close().catch(() => {});
  }
  r.total = r.create + r.connect + r.goto + r.release;
  return r;
}

/** Like helloBrowser, for the local baseline: there is no connect stage (the launch holds the connection). */
export async function helloLocal(executablePath: string, url: string): Promise<SessionRecord> {
  const r: SessionRecord = { create: NaN, connect: 0, goto: NaN, release: NaN, total: NaN, success: false };
  let browser: Browser | undefined;
  try {
    const t0 = performance.now();
    browser = await chromium.launch({ executablePath, headless: true });
    r.create = performance.now() - t0;
    const t2 = performance.now();
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    r.goto = performance.now() - t2;
    r.success = true;
  } catch (err) {
    r.error = (err as Error).message.split('\n')[0].slice(0, 160);
  } finally {
    if (browser) {
      const t3 = performance.now();
      await browser.close().catch(() => {});
      r.release = performance.now() - t3;
    }
  }
  r.total = r.create + r.connect + r.goto + r.release;
  return r;
}
