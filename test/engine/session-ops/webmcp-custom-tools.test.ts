/**
 * WebMCP custom tools (Kernel spec §14.3), as raw HTTP written from the spec (SDK 0.84 has no
 * webmcp), against the real Chromium: a namespaced batch is added (201, the batch), listed and
 * deleted; its tools show up in `GET /webmcp/tools` once per matching tab with `source.custom`
 * and `source.target_id` (not with `exclude_custom`), run in their page through `invoke` with
 * the page tools' result/504 semantics and the 240 KiB output limit, follow navigation, are
 * replaced by `force_overwrite_namespace`; bad bodies are 400/422 and a project key of another
 * project gets 404. The source and the tools run in the browser (the session's jail): they
 * cannot read the engine's files or environment. `webmcp.*` works inside Playwright execute
 * (not for code a timed-out call left running) and the REPL.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Session } from '../../../src/shared/wire/sessions.js';
import type { WebMcpCustomTool, WebMcpInvocationResult, WebMcpTool } from '../../../src/shared/wire/session-webmcp.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { TOOL_RUNNER_MARKER } from '../../../src/engine/runtime/code-runner/webmcp-tool-runner.js';
import { processesWith } from '../../helpers/chromium-web.js';

type Json = Record<string, unknown>;
/** What the error answers add to a success shape (the tests assert the status before reading either). */
type ErrorFields = { code?: string; message?: string; invocation_id?: string };
/** An invocation's answer: its output is whatever the tool returned, read here as plain JSON. */
type Invoked = Partial<WebMcpInvocationResult> & ErrorFields & { error_text?: string };
/** A field of a tool's output (plain JSON the tool returned). */
const outputField = (r: Invoked, key: string) => (r.output as Record<string, unknown> | undefined)?.[key];
type Added = { tools: WebMcpCustomTool[] } & ErrorFields;
let t: TestEngine;
let site: LocalServer;
let browser: Browser;
let page: Page;
let sessionId: string;
let otherSite: LocalServer;
const sandboxed = Boolean(await usableBwrap());
/** In the engine's own environment (this process): a tool that reached it would show it. */
const SENTINEL = `sentinel-${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
  process.env.BROWSERDECK_TEST_WEBMCP_SENTINEL = SENTINEL;
  // A source may evaluate for 3 s here (default 10): the endless loop below is stopped sooner.
  t = await startTestEngine({ customToolSourceTimeoutMs: 3000 });
  site = await startLocalServer({
    '/shop': `<title>shop</title><h1 id="h">Shop</h1><script>window.pageGlobal = 'page value';</script>`,
    '/shop2': '<title>shop two</title><h1 id="h">Shop two</h1>',
    '/other': '<title>other</title>',
    '/widget': '<title>widget</title><p id="w">in-process widget</p>',
    '/host': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>host</title><h1>Host</h1><iframe src="${site.url}/widget"></iframe><iframe src="${otherSite.url}/oop"></iframe>`);
    },
  });
  // Another site (another address): Chromium renders its frames in another process.
  otherSite = await startLocalServer({ '/oop': '<title>oop</title><p id="w">out-of-process widget</p>' }, '127.0.0.2');
  const res = await t.api('/browsers', { method: 'POST', json: { headless: true, timeout_seconds: 300 } });
  const s = (await res.json()) as Session;
  sessionId = s.session_id;
  browser = await chromium.connectOverCDP(s.cdp_ws_url);
  page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  await page.goto(site.url + '/shop');
});
afterAll(async () => {
  delete process.env.BROWSERDECK_TEST_WEBMCP_SENTINEL;
  await browser?.close().catch(() => {});
  if (sessionId) await t.api(`/browsers/${sessionId}`, { method: 'DELETE' });
  await t?.stop();
  await site?.close();
  await otherSite?.close();
});

const base = () => `/browsers/${sessionId}/webmcp`;
const add = async (json: Json, key?: string) => {
  const res = await t.api(`${base()}/custom-tools`, { method: 'POST', json, headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as Added };
};
const customList = async (): Promise<WebMcpCustomTool[]> => ((await (await t.api(`${base()}/custom-tools`)).json()) as { tools: WebMcpCustomTool[] }).tools;
const tools = async (query = ''): Promise<WebMcpTool[]> => {
  const res = await t.api(`${base()}/tools${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { tools: WebMcpTool[] }).tools;
};
const invoke = async (json: Json) => {
  const res = await t.api(`${base()}/invoke`, { method: 'POST', json });
  return { status: res.status, body: (await res.json()) as Invoked };
};
const custom = (list: WebMcpTool[], name: string, ns?: string) =>
  list.filter((x) => x.source.custom && x.tool.name === name && (!ns || x.source.custom.namespace === ns));
const refOf = async (name: string, ns?: string, url = site.url + '/shop') =>
  custom(await tools(), name, ns).find((x) => x.source.page_url === url)?.tool_ref as string;

/** A batch source: tools matching the shop pages (not /other). */
const shopTools = (tools: string) => `[${tools}].map((tool) => ({ match: { url_patterns: ['${site.url}/shop*'] }, ...tool }))`;

describe('WebMCP custom tools', { timeout: 120_000 }, () => {
  it('adds a batch (201, the batch), lists it, and exposes each tool once per matching tab', async () => {
    const added = await add({
      namespace: 'acme',
      source: shopTools(`
        { tool: { name: 'title', description: 'the heading', inputSchema: { type: 'object', properties: {} }, outputSchema: { type: 'string' }, annotations: { readOnlyHint: true } },
          execute: () => document.title + '|' + document.querySelector('#h').textContent },
        { kind: 'page', tool: { name: 'echo', description: 'echoes', inputSchema: { type: 'object' } },
          execute: async (input) => ({ got: input, path: location.pathname, pageGlobal: typeof window.pageGlobal }) }`),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.tools).toHaveLength(2);
    const [title] = added.body.tools;
    expect(title).toEqual({
      id: expect.stringMatching(/^ct_[a-z][a-z0-9]{23}$/),
      kind: 'page',
      namespace: 'acme',
      match: { url_patterns: [`${site.url}/shop*`] },
      tool: {
        name: 'title',
        description: 'the heading',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: { type: 'string' },
        annotations: { readOnlyHint: true },
      },
    });
    expect((await customList()).map((d) => d.tool.name)).toEqual(['title', 'echo']);

    const second = await browser.contexts()[0].newPage();
    await second.goto(site.url + '/shop2');
    const third = await browser.contexts()[0].newPage();
    await third.goto(site.url + '/other');
    const list = await tools();
    const titles = custom(list, 'title');
    expect(titles.map((x) => x.source.page_url).sort()).toEqual([site.url + '/shop', site.url + '/shop2']);
    expect(titles[0].source).toMatchObject({ custom: { id: title.id, namespace: 'acme' }, target_id: expect.any(String), frame: null });
    expect(titles[0].tool_ref).not.toBe(titles[1].tool_ref);
    expect(titles[0].source.target_id).not.toBe(titles[1].source.target_id);
    expect(custom(list, 'echo')).toHaveLength(2);
    expect(list.filter((x) => x.source.page_url === site.url + '/other')).toEqual([]);
    expect((await tools('?exclude_custom=true')).filter((x) => x.source.custom)).toEqual([]);
    await second.close();
    await third.close();
    expect(custom(await tools(), 'title')).toHaveLength(1);
  });

  it('invokes a custom tool in its page, in a world apart from the page scripts', async () => {
    const title = await invoke({ tool_ref: await refOf('title', 'acme'), input: {} });
    expect(title.status, JSON.stringify(title.body)).toBe(200);
    expect(title.body).toEqual({ invocation_id: expect.any(String), status: 'completed', output: 'shop|Shop' });
    const echo = await invoke({ tool_ref: await refOf('echo', 'acme'), input: { q: 'socks', n: 2 } });
    expect(echo.body).toMatchObject({ status: 'completed', output: { got: { q: 'socks', n: 2 }, path: '/shop', pageGlobal: 'undefined' } });
    expect(await page.evaluate(() => (window as unknown as { pageGlobal: string }).pageGlobal)).toBe('page value');
  });

  it('reports a throw as error, silence as 504 outcome_unknown, and output over 240 KiB as error', async () => {
    const r = await add({
      namespace: 'results',
      source: shopTools(`
        { tool: { name: 'fails' }, execute: () => { throw new Error('custom broke'); } },
        { tool: { name: 'hangs' }, execute: () => new Promise(() => {}) },
        { tool: { name: 'big' }, execute: ({ kib }) => 'x'.repeat(kib * 1024) }`),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const failed = await invoke({ tool_ref: await refOf('fails', 'results'), input: {} });
    expect(failed.body).toMatchObject({ status: 'error', error_text: expect.stringContaining('custom broke') });
    const hung = await invoke({ tool_ref: await refOf('hangs', 'results'), input: {}, timeout_sec: 1 });
    expect(hung.status).toBe(504);
    expect(hung.body).toMatchObject({ code: 'outcome_unknown', invocation_id: expect.any(String) });
    const fits = await invoke({ tool_ref: await refOf('big', 'results'), input: { kib: 200 } });
    expect(fits.body.status).toBe('completed');
    expect(fits.body.output).toHaveLength(200 * 1024);
    const over = await invoke({ tool_ref: await refOf('big', 'results'), input: { kib: 241 } });
    expect(over.body).toMatchObject({ status: 'error', error_text: expect.stringContaining('240 KiB') });
    expect(over.body.output).toBeUndefined();
  });

  it('follows navigation: a tab leaving the pattern loses the tool, one arriving gains it', async () => {
    const before = await refOf('title', 'acme');
    await page.goto(site.url + '/other');
    expect(custom(await tools(), 'title')).toEqual([]);
    const gone = await invoke({ tool_ref: before, input: {} });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('tool_not_found');
    await page.goto(site.url + '/shop2');
    const after = await refOf('title', 'acme', site.url + '/shop2');
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect((await invoke({ tool_ref: after, input: {} })).body.output).toBe('shop two|Shop two');
    await page.goto(site.url + '/shop');
  });

  it('adds alongside, refuses a taken name, replaces a namespace atomically, and deletes by id', async () => {
    const beta = await add({ namespace: 'beta', source: shopTools(`{ tool: { name: 'title' }, execute: () => 'beta' }`) });
    expect(beta.status).toBe(201);
    const taken = await add({
      namespace: 'acme',
      source: shopTools(`{ tool: { name: 'fresh' }, execute: () => 1 }, { tool: { name: 'title' }, execute: () => 2 }`),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('custom_tool_exists');
    // All or nothing: 'fresh' did not land either.
    expect((await customList()).filter((d) => d.namespace === 'acme').map((d) => d.tool.name)).toEqual(['title', 'echo']);
    const oldRef = await refOf('title', 'acme');

    const swapped = await add({ namespace: 'acme', force_overwrite_namespace: true, source: shopTools(`{ tool: { name: 'title' }, execute: () => 'v2' }`) });
    expect(swapped.status).toBe(201);
    const acme = (await customList()).filter((d) => d.namespace === 'acme');
    expect(acme.map((d) => d.id)).toEqual([swapped.body.tools[0].id]);
    expect((await customList()).filter((d) => d.namespace === 'beta')).toHaveLength(1);
    expect((await invoke({ tool_ref: oldRef, input: {} })).status).toBe(404);
    expect((await invoke({ tool_ref: await refOf('title', 'acme'), input: {} })).body.output).toBe('v2');

    const id = beta.body.tools[0].id;
    const betaRef = await refOf('title', 'beta');
    const del = await t.api(`${base()}/custom-tools/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await customList()).map((d) => d.id)).not.toContain(id);
    expect(custom(await tools(), 'title', 'beta')).toEqual([]);
    expect((await invoke({ tool_ref: betaRef, input: {} })).status).toBe(404);
    const again = await t.api(`${base()}/custom-tools/${id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(((await again.json()) as ErrorFields).code).toBe('not_found');
  });

  it('answers every bad body with an Error object', async () => {
    const ok = shopTools(`{ tool: { name: 'ok' }, execute: () => 1 }`);
    const cases: [Json, number, string?][] = [
      [{ namespace: 'has space', source: ok }, 400],
      [{ namespace: '', source: ok }, 400],
      [{ namespace: 'n'.repeat(129), source: ok }, 400],
      [{ source: ok }, 400],
      [{ namespace: 'bad' }, 400],
      [{ namespace: 'bad', source: '' }, 400],
      [{ namespace: 'bad', source: '   ' }, 400],
      [{ namespace: 'bad', source: '[]' }, 422, 'invalid_custom_tools'],
      [{ namespace: 'bad', source: '42' }, 422, 'invalid_custom_tool_source'],
      [{ namespace: 'bad', source: '[1, 2' }, 422, 'invalid_custom_tool_source'],
      [{ namespace: 'bad', source: `(() => { throw new Error('source broke'); })()` }, 422, 'invalid_custom_tool_source'],
      [{ namespace: 'bad', source: `[{ match: { url_patterns: ['*'] }, tool: { name: 'x' } }]` }, 422, 'invalid_custom_tools'],
      [{ namespace: 'bad', source: `[{ match: { url_patterns: [] }, tool: { name: 'x' }, execute() {} }]` }, 422, 'invalid_custom_tools'],
      [{ namespace: 'bad', source: `[{ kind: 'worker', match: { url_patterns: ['*'] }, tool: { name: 'x' }, execute() {} }]` }, 422, 'invalid_custom_tools'],
    ];
    for (const [body, status, code] of cases) {
      const r = await add(body);
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(status);
      expect(r.body).toMatchObject({ code: code ?? expect.any(String), message: expect.any(String) });
    }
    expect((await add({ namespace: 'bad', source: `(() => { throw new Error('source broke'); })()` })).body.message).toContain('source broke');
    expect((await customList()).filter((d) => d.namespace === 'bad')).toEqual([]);
    const unknown = await t.api(`${base()}/custom-tools/ct_aaaaaaaaaaaaaaaaaaaaaaaa`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
  });

  it('stops a source that never finishes', async () => {
    const r = await add({ namespace: 'loop', source: '(() => { for (;;) {} })()' });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_custom_tool_source');
    // The browser still answers.
    expect((await invoke({ tool_ref: await refOf('title', 'acme'), input: {} })).body.status).toBe('completed');
  });

  it('takes a source of 8,000,000 UTF-8 bytes and refuses one byte more', async () => {
    const head = shopTools(`{ tool: { name: 'sized' }, execute: () => 'sized' }`) + ' // ';
    // '€' is 3 bytes in UTF-8: the limit is on bytes, not characters.
    const fill = (bytes: number) => head + '€'.repeat(Math.floor((bytes - Buffer.byteLength(head)) / 3)) + 'x'.repeat((bytes - Buffer.byteLength(head)) % 3);
    const exact = fill(8_000_000);
    expect(Buffer.byteLength(exact)).toBe(8_000_000);
    const over = await add({ namespace: 'sized', source: fill(8_000_001) });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/8000000 UTF-8 bytes/);
    const fits = await add({ namespace: 'sized', source: exact });
    expect(fits.status, JSON.stringify(fits.body).slice(0, 300)).toBe(201);
    expect((await invoke({ tool_ref: await refOf('sized', 'sized'), input: {} })).body.output).toBe('sized');
    const del = await t.api(`${base()}/custom-tools/${fits.body.tools[0].id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
  });

  it("keeps another project's key out", async () => {
    const ctx = t.engine.context;
    const project = await ctx.projects.create(ctx.orgId, `p-${Math.random().toString(36).slice(2, 8)}`);
    const key = (await ctx.apiKeys.issue({ orgId: ctx.orgId, name: 'scoped', projectId: project.id, createdById: null, expiresAt: null })).key;
    const headers = { authorization: `Bearer ${key}` };
    expect((await t.api(`${base()}/custom-tools`, { headers })).status).toBe(404);
    const post = await add({ namespace: 'intruder', source: shopTools(`{ tool: { name: 'x' }, execute: () => 1 }`) }, key);
    expect(post.status).toBe(404);
    // Out of reach comes first, whatever the body.
    expect((await add({ namespace: 'bad name' }, key)).status).toBe(404);
    const id = (await customList())[0].id;
    expect((await t.api(`${base()}/custom-tools/${id}`, { method: 'DELETE', headers })).status).toBe(404);
    expect((await customList()).map((d) => d.id)).toContain(id);
    expect((await customList()).filter((d) => d.namespace === 'intruder')).toEqual([]);
  });

  it("runs source and tools where the engine's files and environment are not", async () => {
    const keyPath = path.join(t.dataDir, 'admin-api-key');
    // Each way code in the engine process would reach Node: the global, and escaping a vm context.
    const probe = `(() => {
      const out = [];
      for (const get of [() => process, () => globalThis.constructor.constructor('return process')()]) {
        try {
          const p = get();
          out.push('env:' + JSON.stringify(p.env), 'file:' + p.getBuiltinModule('fs').readFileSync(${JSON.stringify(keyPath)}, 'utf8'));
        } catch (err) {
          out.push('blocked:' + err.message);
        }
      }
      return out.join('\\n');
    })()`;
    const r = await add({
      namespace: 'jail',
      source: `[{ match: { url_patterns: ['${site.url}/shop*'] }, tool: { name: 'probe', description: ${probe} }, execute: async () => ({ probe: ${probe}, file: await fetch(${JSON.stringify('file://' + keyPath)}).then((x) => x.text(), (e) => 'blocked:' + e.message) }) }]`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const description = r.body.tools[0].tool.description as string;
    expect(description).toMatch(/^blocked:.*process is not defined\nblocked:/);
    for (const leaked of [t.adminKey, SENTINEL]) expect(description).not.toContain(leaked);
    const out = await invoke({ tool_ref: await refOf('probe', 'jail'), input: {} });
    expect(out.body.status).toBe('completed');
    expect(outputField(out.body, 'probe')).toMatch(/^blocked:.*\nblocked:/);
    expect(outputField(out.body, 'file')).toMatch(/^blocked:/);
    for (const leaked of [t.adminKey, SENTINEL]) expect(JSON.stringify(out.body)).not.toContain(leaked);
  });

  it('offers webmcp.listTools and webmcp.invokeTool inside Playwright execute', async () => {
    const added = await add({
      namespace: 'exec',
      source: shopTools(`{ tool: { name: 'echo' }, execute: async (input) => ({ got: input, path: location.pathname }) }`),
    });
    expect(added.status).toBe(201);
    const res = await t.api(`/browsers/${sessionId}/playwright/execute`, {
      method: 'POST',
      json: {
        timeout_sec: 60,
        code: `
const list = await webmcp.listTools();
const mine = list.find((x) => x.source.custom?.namespace === 'exec');
const ran = mine && (await webmcp.invokeTool(mine.tool_ref, { from: 'execute' }, { timeoutSec: 30 }));
const errors = [];
for (const call of [() => webmcp.invokeTool('wt_gone'), () => webmcp.invokeTool(mine.tool_ref, {}, { timeoutSec: 500 })]) {
  try { await call(); errors.push('none'); } catch (err) { errors.push(err.code); }
}
return { names: list.map((x) => x.tool.name), ran, errors };`,
      },
    });
    const body = (await res.json()) as { success: boolean; result: { names: string[]; ran: unknown; errors: string[] } };
    expect(body.success, JSON.stringify(body)).toBe(true);
    expect(body.result.names).toEqual(expect.arrayContaining(['title', 'probe']));
    expect(body.result.ran).toMatchObject({ status: 'completed', output: { got: { from: 'execute' }, path: '/shop' } });
    expect(body.result.errors).toEqual(['tool_not_found', 'invalid_request']);
  });

  it('refuses webmcp calls from code a timed-out call left running', async () => {
    const exec = async (code: string, timeout_sec = 60) =>
      (await (await t.api(`/browsers/${sessionId}/playwright/execute`, { method: 'POST', json: { code, timeout_sec } })).json()) as {
        result?: unknown;
        error?: string;
      };
    // `process` is the executor's own: what the abandoned code records there, later calls read.
    const abandoned = await exec(
      `setTimeout(() => webmcp.listTools().then(() => 'answered', (err) => err.code).then((r) => (process.webmcpAfterTimeout = r)), 1500);
await new Promise(() => {});`,
      1,
    );
    expect(abandoned.error).toMatch(/timed out/);
    await expect.poll(async () => (await exec('return process.webmcpAfterTimeout ?? null')).result, { timeout: 30_000 }).toBe('call_ended');
  });

  it('matches nested frames, in-process and out-of-process, and runs a page tool in the frame that matched', async () => {
    const added = await add({
      namespace: 'frames',
      source: `[
        { match: { url_patterns: ['${site.url}/widget'] }, tool: { name: 'inner' }, execute: () => location.href + '|' + document.querySelector('#w').textContent },
        { match: { url_patterns: ['${otherSite.url}/oop'] }, tool: { name: 'oop' }, execute: () => location.href + '|' + document.querySelector('#w').textContent },
      ]`,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const tab = await browser.contexts()[0].newPage();
    try {
      await tab.goto(site.url + '/host');
      await tab.frameLocator('iframe >> nth=1').locator('#w').waitFor();
      // What this case is about: Chromium renders the other site's frame as a target of its own.
      const cdp = await browser.newBrowserCDPSession();
      const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; url: string }[] };
      await cdp.detach();
      expect(targetInfos.filter((x) => x.type === 'iframe').map((x) => x.url)).toContain(otherSite.url + '/oop');
      const list = await tools();
      for (const [name, url, text] of [
        ['inner', site.url + '/widget', 'in-process widget'],
        ['oop', otherSite.url + '/oop', 'out-of-process widget'],
      ]) {
        // Once per tab, on its top-level document.
        const found = custom(list, name, 'frames');
        expect(found, name).toHaveLength(1);
        expect(found[0].source).toMatchObject({ page_url: site.url + '/host', frame: null, target_id: expect.any(String) });
        const r = await invoke({ tool_ref: found[0].tool_ref, input: {} });
        expect(r.body, name).toMatchObject({ status: 'completed', output: `${url}|${text}` });
      }
      // A frame navigating away takes the tool with it.
      await tab.evaluate(() => (document.querySelectorAll('iframe')[1].src = 'about:blank'));
      await expect.poll(async () => custom(await tools(), 'oop', 'frames').length).toBe(0);
      expect(custom(await tools(), 'inner', 'frames')).toHaveLength(1);
    } finally {
      await tab.close();
      for (const d of added.body.tools) await t.api(`${base()}/custom-tools/${d.id}`, { method: 'DELETE' });
    }
  });

  it.runIf(sandboxed)("runs CDP-backed tools in the session's jail with the REPL helpers, bound to the tab invoked on", async () => {
    const keyPath = path.join(t.dataDir, 'admin-api-key');
    const added = await add({
      namespace: 'cdp',
      source: `[
        { kind: 'cdp', tool: { name: 'look' }, execute: async (input, ctx) => ({
            input, url: page.url(), title: await page.title(), target: targetId, same: ctx.page === page,
            sum: (await cdp('Runtime.evaluate', { expression: '20 + 22', returnByValue: true })).result.value,
            snapshot: await accessibilitySnapshot(),
            tabs: (await listTabs()).length > 1,
          }) },
        { kind: 'cdp', tool: { name: 'go' }, execute: async ({ to }) => (await gotoUrl(to)).url },
        { kind: 'cdp', tool: { name: 'throws' }, execute: async () => { throw new Error('cdp tool broke'); } },
        { kind: 'cdp', tool: { name: 'spins' }, execute: () => { for (;;) {} } },
        { kind: 'cdp', tool: { name: 'escape' }, execute: async () => {
            const fs = await import('node:fs');
            const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (err) { return 'blocked:' + err.code; } };
            return { key: read(${JSON.stringify(keyPath)}), env: JSON.stringify(process.env), uid: process.getuid() };
          } },
      ].map((d) => ({ match: { url_patterns: ['${site.url}/shop*'] }, ...d }))`,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.tools.map((d) => d.kind)).toEqual(['cdp', 'cdp', 'cdp', 'cdp', 'cdp']);
    const second = await browser.contexts()[0].newPage();
    try {
      await second.goto(site.url + '/shop2');
      const list = custom(await tools(), 'look', 'cdp');
      expect(list.map((x) => x.source.page_url).sort()).toEqual([site.url + '/shop', site.url + '/shop2']);
      // Concurrent invocations on two tabs: each sees its own tab as `page`.
      const looks = await Promise.all(list.map((x) => invoke({ tool_ref: x.tool_ref, input: { n: x.source.page_url } })));
      looks.forEach((r, i) => {
        expect(r.body, JSON.stringify(r.body)).toMatchObject({
          status: 'completed',
          output: { input: { n: list[i].source.page_url }, url: list[i].source.page_url, target: list[i].source.target_id, same: true, sum: 42, tabs: true },
        });
        expect(outputField(r.body, 'snapshot')).toContain('Shop');
      });
      const refOn = async (name: string, url: string) => custom(await tools(), name, 'cdp').find((x) => x.source.page_url === url)?.tool_ref as string;
      // The helpers act on the real tab.
      const went = await invoke({ tool_ref: await refOn('go', site.url + '/shop2'), input: { to: site.url + '/other' } });
      expect(went.body).toMatchObject({ status: 'completed', output: site.url + '/other' });
      // This connection hears of the navigation a moment later.
      await expect.poll(() => second.url()).toBe(site.url + '/other');

      const thrown = await invoke({ tool_ref: await refOn('throws', site.url + '/shop'), input: {} });
      expect(thrown.body).toMatchObject({ status: 'error', error_text: expect.stringContaining('cdp tool broke') });
      const spun = await invoke({ tool_ref: await refOn('spins', site.url + '/shop'), input: {}, timeout_sec: 2 });
      expect(spun.status).toBe(504);
      expect(spun.body).toMatchObject({ code: 'outcome_unknown', invocation_id: expect.any(String) });
      // The runner stuck in the loop was replaced: the next invocation answers.
      const escape = await invoke({ tool_ref: await refOn('escape', site.url + '/shop'), input: {} });
      expect(escape.body.status, JSON.stringify(escape.body)).toBe('completed');
      expect(outputField(escape.body, 'key')).toMatch(/^blocked:/);
      for (const leaked of [t.adminKey, SENTINEL]) expect(JSON.stringify(escape.body)).not.toContain(leaked);
    } finally {
      await second.close();
      for (const d of added.body.tools) await t.api(`${base()}/custom-tools/${d.id}`, { method: 'DELETE' });
    }
  });

  it.runIf(sandboxed)('offers webmcp.listTools and webmcp.invokeTool in the REPL', async () => {
    const res = await t.api(`/browsers/${sessionId}/repl`, {
      method: 'POST',
      json: {
        timeout_sec: 60,
        code: `
const list = await webmcp.listTools();
const probe = list.find((x) => x.tool.name === 'probe');
repl.write(JSON.stringify({ count: list.filter((x) => x.source.custom).length > 0, out: (await webmcp.invokeTool(probe.tool_ref)).status }));`,
      },
    });
    const body = (await res.json()) as { success: boolean; content: Array<{ text: string }> };
    expect(body.success, JSON.stringify(body)).toBe(true);
    expect(JSON.parse(body.content[0].text)).toEqual({ count: true, out: 'completed' });
  });

  it.runIf(sandboxed)('ends the tool runner with its session', async () => {
    const res = await t.api('/browsers', { method: 'POST', json: { headless: true, timeout_seconds: 300 } });
    const id = ((await res.json()) as Session).session_id;
    const b = await chromium.connectOverCDP(((await (await t.api(`/browsers/${id}`)).json()) as Session).cdp_ws_url);
    try {
      const tab = b.contexts()[0].pages()[0] ?? (await b.contexts()[0].newPage());
      await tab.goto(site.url + '/shop');
      const r = await t.api(`/browsers/${id}/webmcp/custom-tools`, {
        method: 'POST',
        json: { namespace: 'n', source: `[{ kind: 'cdp', match: { url_patterns: ['${site.url}/*'] }, tool: { name: 'u' }, execute: () => page.url() }]` },
      });
      expect(r.status).toBe(201);
      const list = ((await (await t.api(`/browsers/${id}/webmcp/tools`)).json()) as { tools: WebMcpTool[] }).tools;
      const out = await t.api(`/browsers/${id}/webmcp/invoke`, { method: 'POST', json: { tool_ref: list.find((x) => x.source.custom)!.tool_ref, input: {} } });
      expect(((await out.json()) as Invoked).output).toBe(site.url + '/shop');
      expect(processesWith(`${TOOL_RUNNER_MARKER}=${id}`)).toHaveLength(1);
    } finally {
      await b.close().catch(() => {});
      await t.api(`/browsers/${id}`, { method: 'DELETE' });
    }
    await expect.poll(() => processesWith(`${TOOL_RUNNER_MARKER}=${id}`), { timeout: 60_000 }).toEqual([]);
  });
});
