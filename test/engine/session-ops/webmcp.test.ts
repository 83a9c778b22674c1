/**
 * WebMCP (Kernel spec §14) against the real Chromium: tools registered by pages with
 * `document.modelContext.registerTool` show up in `GET /browsers/{id}/webmcp/tools` across tabs
 * and frames (an out-of-process iframe of another site included), with a `tool_ref` that
 * `POST /browsers/{id}/webmcp/invoke` calls; a tool that throws is `status: error`, a tool that
 * never answers is 504 `outcome_unknown`, a ref of a document that navigated away is 404.
 * Custom tools (webmcp-custom-tools.test.ts) start empty, entitlements say WebMCP is on.
 */
import { getEventListeners } from 'node:events';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import type { BrowserCreateResponse } from '@onkernel/sdk/resources/browsers/browsers';
import type { WebMcpTool } from '../../../src/shared/wire/session-webmcp.js';

type Json = Record<string, unknown>;
let t: TestEngine;
let site: LocalServer;
let other: LocalServer;
let browser: Browser;
let page: Page;
let sessionId: string;

/** A page script registering tools; `document.modelContext` in Chromium 156 (`navigator` in older drafts). */
const register = (tools: string) => `<script>
const mc = document.modelContext ?? navigator.modelContext;
${tools}
</script>`;

beforeAll(async () => {
  t = await startTestEngine();
  other = await startLocalServer({
    '/frame': `<title>frame</title>${register(`mc.registerTool({ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, execute: async ({ text }) => 'echo:' + text });`)}`,
  });
  // The first page names the other server by "localhost": another site, so its own process (OOPIF).
  site = await startLocalServer({
    '/tools': `<title>tools</title>${register(`
mc.registerTool({ name: 'add', description: 'adds a and b', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, execute: async ({ a, b }) => String(a + b) });
mc.registerTool({ name: 'fails', description: 'throws', inputSchema: { type: 'object', properties: {} }, execute: async () => { throw new Error('tool broke'); } });
mc.registerTool({ name: 'hangs', description: 'never answers', inputSchema: { type: 'object', properties: {} }, execute: () => new Promise(() => {}) });
`)}<iframe allow="tools" src="${other.url.replace('127.0.0.1', 'localhost')}/frame"></iframe>`,
    '/second': `<title>second</title>${register(`mc.registerTool({ name: 'second_tool', description: 'in tab two', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true }, execute: async () => 'two' });`)}`,
    '/plain': '<title>plain</title>',
  });
  const res = await t.api('/browsers', { method: 'POST', json: { headless: true, timeout_seconds: 120 } });
  const s = (await res.json()) as BrowserCreateResponse;
  sessionId = s.session_id;
  browser = await chromium.connectOverCDP(s.cdp_ws_url);
  page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  await page.goto(site.url + '/tools');
});
afterAll(async () => {
  await browser?.close().catch(() => {});
  if (sessionId) await t.api(`/browsers/${sessionId}`, { method: 'DELETE' });
  await t?.stop();
  await site?.close();
  await other?.close();
});

const tools = async (): Promise<WebMcpTool[]> => {
  const res = await t.api(`/browsers/${sessionId}/webmcp/tools`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { tools: WebMcpTool[] }).tools;
};
const invoke = async (json: Json) => {
  const res = await t.api(`/browsers/${sessionId}/webmcp/invoke`, { method: 'POST', json });
  return { status: res.status, body: (await res.json()) as Json };
};
const byName = (list: WebMcpTool[], name: string): WebMcpTool => {
  const found = list.find((x) => x.tool.name === name);
  if (!found) throw new Error(`no tool named ${name} in the list`);
  return found;
};

describe('WebMCP tools', () => {
  it('lists the tools of every tab and frame, with their source', async () => {
    const second = await browser.contexts()[0].newPage();
    await second.goto(site.url + '/second');
    await expect
      .poll(async () => (await tools()).map((x) => x.tool.name).sort(), { timeout: 20_000 })
      .toEqual(['add', 'echo', 'fails', 'hangs', 'second_tool']);
    const list = await tools();
    const add = byName(list, 'add');
    expect(add.tool_ref).toMatch(/^wt_/);
    expect(add.tool).toMatchObject({ description: 'adds a and b', inputSchema: { type: 'object', required: ['a', 'b'] } });
    expect(add.source).toMatchObject({ page_url: site.url + '/tools', page_title: 'tools', frame: null });
    const echo = byName(list, 'echo');
    expect(echo.source.tab_id).toBe(add.source.tab_id);
    expect(echo.source.frame).toEqual({ frame_id: expect.any(Number), url: other.url.replace('127.0.0.1', 'localhost') + '/frame' });
    const two = byName(list, 'second_tool');
    expect(two.source.tab_id).not.toBe(add.source.tab_id);
    expect(two.source).toMatchObject({ page_url: site.url + '/second', page_title: 'second', frame: null });
    expect(two.tool.annotations).toMatchObject({ readOnlyHint: true });
    await second.close();
    await expect.poll(async () => (await tools()).find((x) => x.tool.name === 'second_tool'), { timeout: 20_000 }).toBeUndefined();
  });

  it('invokes a tool in the page and in an out-of-process frame', async () => {
    const list = await tools();
    // Each call watches the session's end; a finished call leaves no listener on the session's signal.
    // Counted by what they do: other parts of the session (each CDP proxy connection) add and remove
    // listeners of their own meanwhile (CI once saw a third one there).
    const signal = t.engine.services.sessions.get(sessionId)!.signal;
    const callListeners = () => getEventListeners(signal, 'abort').filter((f) => String(f).includes('OutcomeUnknown')).length;
    const sum = await invoke({ tool_ref: byName(list, 'add').tool_ref, input: { a: 2, b: 40 } });
    expect(sum.status, JSON.stringify(sum.body)).toBe(200);
    expect(sum.body).toMatchObject({ invocation_id: expect.any(String), status: 'completed' });
    expect(JSON.stringify(sum.body.output)).toContain('42');
    const echo = await invoke({ tool_ref: byName(list, 'echo').tool_ref, input: { text: 'hi' } });
    expect(echo.body.status).toBe('completed');
    expect(JSON.stringify(echo.body.output)).toContain('echo:hi');
    expect(callListeners()).toBe(0);
  });

  it('reports a throwing tool as an error and a silent one as outcome_unknown', async () => {
    const list = await tools();
    const failed = await invoke({ tool_ref: byName(list, 'fails').tool_ref, input: {} });
    expect(failed.status).toBe(200);
    expect(failed.body.status).toBe('error');
    expect(failed.body.error_text).toContain('tool broke');
    const hung = await invoke({ tool_ref: byName(list, 'hangs').tool_ref, input: {}, timeout_sec: 1 });
    expect(hung.status).toBe(504);
    expect(hung.body).toMatchObject({ code: 'outcome_unknown', invocation_id: expect.any(String) });
  });

  it('refuses bad input and refs of documents that are gone', async () => {
    expect((await invoke({ tool_ref: 'wt_nope', input: {} })).status).toBe(404);
    expect((await invoke({ tool_ref: byName(await tools(), 'add').tool_ref, input: {}, timeout_sec: 500 })).status).toBe(400);
    expect((await invoke({ tool_ref: byName(await tools(), 'add').tool_ref })).status).toBe(400);
    const ref = byName(await tools(), 'add').tool_ref;
    await page.goto(site.url + '/plain');
    await expect.poll(async () => (await tools()).map((x) => x.tool.name), { timeout: 20_000 }).toEqual([]);
    const gone = await invoke({ tool_ref: ref, input: { a: 1, b: 1 } });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('tool_not_found');
  });

  it('lists no custom tools until some are added, and entitlements say WebMCP is on', async () => {
    const custom = await t.api(`/browsers/${sessionId}/webmcp/custom-tools`);
    expect(custom.status).toBe(200);
    expect(await custom.json()).toEqual({ tools: [] });
    const ent = (await (await t.api('/org/entitlements')).json()) as { features: Record<string, unknown> };
    expect(ent.features.webmcp).toEqual({ enabled: true });
  });
});
