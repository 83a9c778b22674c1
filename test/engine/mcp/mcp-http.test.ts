/**
 * The engine's MCP server at /mcp, driven by the official MCP SDK client over Streamable HTTP
 * with a project-scoped key: the tool list has Kernel's names; a browser is created, Playwright
 * code reads a local page, a screenshot comes back as a PNG image, the page is driven by snapshot
 * refs, and the browser is deleted; another project's browser is out of reach; no key is the
 * API's 401; a tool error carries the API's code; each tool call is audited as its API call.
 * And Playwright's own MCP server (`@playwright/mcp`, stdio) attached to the session's
 * cdp_ws_url navigates and snapshots a page in it.
 * One engine and one browser for the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { auditTable } from '../audit/audit-helpers.js';

let t: TestEngine;
let site: LocalServer;
let scopedKey: string;
let projectA: string;
let projectB: string;
let foreignSession: string;
let mcp: Client;

const PAGE = `<!doctype html><title>MCP page</title><h1>Hello from the test site</h1>
<button onclick="document.querySelector('h1').textContent = 'clicked ' + document.querySelector('input').value">Go</button>
<input aria-label="Name">`;

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
  return client;
}

async function call(name: string, args: Record<string, unknown> = {}, client = mcp): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(r: CallToolResult): string {
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error(`expected text content, got ${first?.type}`);
  return first.text;
}

const json = <T = Record<string, unknown>>(r: CallToolResult): T => JSON.parse(text(r)) as T;

beforeAll(async () => {
  t = await startTestEngine();
  site = await startLocalServer({ '/': PAGE });
  projectA = (await t.client.projects.create({ name: 'mcp-a' })).id;
  projectB = (await t.client.projects.create({ name: 'mcp-b' })).id;
  scopedKey = (await t.client.apiKeys.create({ name: 'mcp-a-key', project_id: projectA })).key;
  foreignSession = (await t.clientWith({ projectID: projectB }).browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
  mcp = await connect({ Authorization: `Bearer ${scopedKey}` });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await site?.close();
  await t?.stop();
});

describe('MCP over Streamable HTTP', () => {
  let sessionId = '';

  it("lists Kernel's tools and the session tools", async () => {
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    for (const kernel of [
      'create_browser',
      'get_browser',
      'list_browsers',
      'delete_browser',
      'execute_playwright_code',
      'take_screenshot',
      'setup_profile',
      'list_profiles',
      'delete_profile',
      'list_apps',
      'invoke_action',
      'get_deployment',
      'list_deployments',
      'get_invocation',
      'search_docs',
    ])
      expect(names).toContain(kernel);
    for (const extra of ['navigate', 'snapshot', 'click', 'type', 'get_console_errors', 'list_downloads', 'exec', 'start_replay', 'get_live_view_url'])
      expect(names).toContain(extra);
  });

  it('creates a browser in the key’s project and runs Playwright code that reads a page', async () => {
    const created = json<{ session_id: string; cdp_ws_url: string }>(await call('create_browser', { headless: true, timeout_seconds: 120 }));
    sessionId = created.session_id;
    expect((await t.client.browsers.retrieve(sessionId, {}, { headers: { 'X-Kernel-Project-Id': projectA } })).session_id).toBe(sessionId);
    const run = await call('execute_playwright_code', {
      session_id: sessionId,
      code: `await page.goto(${JSON.stringify(site.url)}); return await page.textContent('h1');`,
    });
    expect(run.isError).toBeFalsy();
    expect(json(run)).toMatchObject({ success: true, result: 'Hello from the test site' });
  });

  it('takes a screenshot as MCP image content that decodes as a PNG', async () => {
    const shot = await call('take_screenshot', { session_id: sessionId });
    const image = shot.content[0];
    expect(image.type).toBe('image');
    if (image.type !== 'image') return;
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const region = await call('take_screenshot', { session_id: sessionId, x: 0, y: 0, width: 20 });
    expect(region.isError).toBe(true);
    expect(json(region)).toMatchObject({ code: 'invalid_request' });
  });

  it('drives the page by snapshot refs', async () => {
    const snap = text(await call('snapshot', { session_id: sessionId }));
    expect(snap).toContain('Hello from the test site');
    const ref = (re: RegExp): string => re.exec(snap)?.[1] ?? '';
    const input = ref(/textbox "Name".*\[ref=(\w+)\]/);
    const button = ref(/button "Go".*\[ref=(\w+)\]/);
    expect(input && button).toBeTruthy();
    expect((await call('type', { session_id: sessionId, ref: input, text: 'agent' })).isError).toBeFalsy();
    expect((await call('click', { session_id: sessionId, ref: button })).isError).toBeFalsy();
    expect(json(await call('execute_playwright_code', { session_id: sessionId, code: `return await page.textContent('h1');` }))).toMatchObject({
      result: 'clicked agent',
    });
  });

  it("does not see or delete another project's browser; the tool error carries the API's code", async () => {
    const listed = await call('list_browsers');
    expect(text(listed)).not.toContain(foreignSession);
    for (const tool of ['get_browser', 'delete_browser', 'take_screenshot']) {
      const r = await call(tool, { session_id: foreignSession });
      expect(r.isError).toBe(true);
      expect(json(r)).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect((await t.clientWith({ projectID: projectB }).browsers.retrieve(foreignSession)).session_id).toBe(foreignSession);
  });

  it('audits each tool call as the API call it makes, under the caller', async () => {
    const rows = await auditTable(t);
    const execute = rows.filter((r) => r.route === '/browsers/:id/playwright/execute');
    expect(execute.length).toBeGreaterThan(0);
    expect(execute[0]).toMatchObject({ auth_strategy: 'api_key', service: 'browsers', status: 200 });
    expect(rows.some((r) => r.route === '/mcp' && r.service === 'mcp' && r.method === 'POST')).toBe(true);
    const denied = rows.filter((r) => r.route === '/browsers/:id' && r.path === `/browsers/${foreignSession}` && r.method === 'DELETE');
    expect(denied.map((r) => r.status)).toEqual([404]);
  });

  it('answers search_docs from the docs tree', async () => {
    const found = text(await call('search_docs', { query: 'save a profile' }));
    expect(found).toContain('docs/use/profiles.md');
  });

  it("lets @playwright/mcp attached to the session's cdp_ws_url navigate and snapshot a page", async () => {
    const { cdp_ws_url } = json<{ cdp_ws_url: string }>(await call('get_browser', { session_id: sessionId }));
    const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'pw-mcp-'));
    const pw = new Client({ name: 'playwright-mcp-test', version: '1.0.0' });
    const cli = path.join(process.cwd(), 'node_modules/@playwright/mcp/cli.js');
    await pw.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cli, '--cdp-endpoint', cdp_ws_url, '--output-dir', outDir],
        // Its registry of attached browsers goes to the temp dir, not the user's ~/.cache.
        env: { ...getDefaultEnvironment(), XDG_CACHE_HOME: outDir },
        stderr: 'pipe',
      }),
    );
    try {
      const nav = (await pw.callTool({ name: 'browser_navigate', arguments: { url: `${site.url}/` } })) as CallToolResult;
      expect(nav.isError).toBeFalsy();
      const snap = (await pw.callTool({ name: 'browser_snapshot', arguments: {} })) as CallToolResult;
      expect(text(snap)).toContain('Hello from the test site');
    } finally {
      await pw.close();
      await fs.rm(outDir, { recursive: true, force: true });
    }
  });

  it('deletes the browser', async () => {
    expect(text(await call('delete_browser', { session_id: sessionId }))).toContain('deleted');
    const after = await call('get_browser', { session_id: sessionId });
    expect(after.isError).toBe(true);
  });
});

describe('who may call /mcp', () => {
  it('refuses a request without credentials with the API’s 401 Error object', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    await expect(connect({})).rejects.toThrow();
  });

  it('answers malformed messages without a 5xx, and GET with 405', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${scopedKey}`, 'content-type': type, accept: 'application/json, text/event-stream' },
        body,
      });
    expect((await post('{not json')).status).toBe(400);
    for (const res of [await post('{"foo":1}'), await post('[]'), await post('hello', 'text/plain'), await post('{"jsonrpc":"2.0","id":1,"method":"nope"}')])
      expect(res.status).toBeLessThan(500);
    const get = await fetch(`${t.url}/mcp`, { headers: { authorization: `Bearer ${scopedKey}` } });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ code: 'method_not_allowed' });
  });

  it('takes the console sign-in cookie', async () => {
    const signIn = await fetch(`${t.url}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-browserdeck-console': '1' },
      body: JSON.stringify({ api_key: scopedKey }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const client = await connect({ cookie, 'x-browserdeck-console': '1' });
    try {
      expect(text(await call('list_profiles', {}, client))).toContain('No profiles');
    } finally {
      await client.close();
    }
  });
});
