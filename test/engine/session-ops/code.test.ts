/**
 * `client.browsers.playwright.execute` (SDK 0.84) against a real session: return values, console
 * capture, TypeScript, fresh JavaScript globals per call in the browser's default context (the
 * executor era, spec §7: `page` is the user's tab, no longer a new incognito context), thrown
 * and syntax errors as `success: false`, non-serializable results, timeouts that answer and
 * leave the executor usable, and bad input. Executors themselves: executors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestWebServer, processesWith, type TestWebServer } from '../../helpers/chromium-web.js';
import { RUNNER_MARKER } from '../../../src/engine/runtime/code-runner/code-runner.js';

let te: TestEngine;
let web: TestWebServer;
let id: string;
let browser: Browser;

beforeAll(async () => {
  web = await startTestWebServer();
  te = await startTestEngine();
  const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  id = s.session_id;
  browser = await chromium.connectOverCDP(s.cdp_ws_url);
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await te?.stop();
  await web?.close();
});

const run = (code: string, timeout_sec?: number) => te.client.browsers.playwright.execute(id, { code, timeout_sec });

describe('playwright/execute', () => {
  it('runs code with page, context and browser and returns its value', async () => {
    const r = await run(
      `await page.goto(${JSON.stringify(web.url + '/title/Hello')}); return { title: await page.title(), contexts: browser.contexts().length, pages: context.pages().length };`,
    );
    expect(r).toMatchObject({ success: true, result: { title: 'Hello', contexts: 1 } });
    expect(web.hits.get('/title/Hello')).toBe(1);
    expect(await run('const x = 1;')).toMatchObject({ success: true });
    expect((await run('const x = 1;')).result).toBeUndefined();
  });

  it('captures stdout and stderr', async () => {
    const r = await run(`console.log('hello', 42); console.error('oops'); process.stdout.write('raw\\n'); return 'done';`);
    expect(r).toMatchObject({ success: true, result: 'done' });
    expect(r.stdout).toBe('hello 42\nraw\n');
    expect(r.stderr).toBe('oops\n');
  });

  it('accepts TypeScript', async () => {
    const r = await run(`interface P { n: number }\nconst f = (p: P): number => p.n * 2;\nconst v = <number>f({ n: 21 });\nreturn v as number;`);
    expect(r).toMatchObject({ success: true, result: 42 });
  });

  it('runs every call in the default context with fresh globals', async () => {
    const set = await run(
      `globalThis.leftover = 1; await context.addCookies([{ name: 'c1', value: 'v', url: ${JSON.stringify(web.url)} }]); return (await context.cookies()).map((c) => c.name);`,
    );
    expect(set.result).toEqual(['c1']);
    const next = await run(`return { cookies: (await context.cookies()).map((c) => c.name), leftover: typeof leftover };`);
    expect(next).toMatchObject({ success: true, result: { cookies: ['c1'], leftover: 'undefined' } });
    // The context is the session's own one (a CDP client sees the cookie), and no other was opened.
    expect((await browser.contexts()[0].cookies()).map((c) => c.name)).toContain('c1');
    expect(browser.contexts().length).toBe(1);
    await browser.contexts()[0].clearCookies();
  });

  it('reports thrown errors, syntax errors and unserializable results as success:false', async () => {
    expect(await run(`throw new Error('boom')`)).toMatchObject({ success: false, error: 'boom' });
    const syntax = await run(`return (;`);
    expect(syntax.success).toBe(false);
    expect(syntax.error).toMatch(/^syntax error/);
    const circular = await run(`const a = {}; a.self = a; return a;`);
    expect(circular).toMatchObject({ success: false });
    expect(circular.error).toMatch(/JSON/);
    const big = await run(`return 10n;`);
    expect(big.success).toBe(false);
  });

  it('answers a timeout with what the code printed and keeps the executor usable', async () => {
    const marker = `${RUNNER_MARKER}=${id}`;
    const r = await run(`console.log('started'); await new Promise(() => {});`, 1);
    expect(r).toMatchObject({ success: false, stdout: 'started\n' });
    expect(r.error).toMatch(/timed out after 1 s/);
    // The executor process stays (spec §7: a timeout only drops its browser connection).
    expect(processesWith(marker).length).toBe(1);
    expect(await run('return 1')).toMatchObject({ success: true, result: 1 });
  });

  it('does not hand the engine environment to the code', async () => {
    process.env.BROWSERDECK_TEST_SECRET = 'do-not-leak';
    try {
      const r = await run(`return process.env.BROWSERDECK_TEST_SECRET ?? null;`);
      expect(r).toMatchObject({ success: true, result: null });
    } finally {
      delete process.env.BROWSERDECK_TEST_SECRET;
    }
  });

  it('rejects bad input', async () => {
    const status = async (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (e: { status?: number }) => e.status,
      );
    expect(await status(te.client.browsers.playwright.execute(id, {} as never))).toBe(400);
    expect(await status(te.client.browsers.playwright.execute(id, { code: '' }))).toBe(400);
    expect(await status(te.client.browsers.playwright.execute(id, { code: 'return 1', timeout_sec: 0 }))).toBe(400);
    expect(await status(te.client.browsers.playwright.execute(id, { code: 'return 1', timeout_sec: 100_000 }))).toBe(400);
    expect(await status(te.client.browsers.playwright.execute(id, { code: 1 } as never))).toBe(400);
    expect(await status(te.client.browsers.playwright.execute('no-such-session', { code: 'return 1' }))).toBe(404);
  });
});
