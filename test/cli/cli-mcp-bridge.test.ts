/**
 * `browserdeck mcp`: the stdio bridge driven by the MCP SDK's own Client over
 * StdioClientTransport (as Claude Desktop or Goose start it), in front of a Streamable HTTP MCP
 * server built with the SDK in this file at `<url>/mcp` that wants `Bearer <key>` — a real MCP
 * server, not the engine's (the engine's /mcp is tested in its own files). Proves the bridge
 * forwards requests, results, tool errors and the session, and that a wrong key is one error
 * line for the client, not a hang.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { BIN, baseEnv } from './run-cli.js';

const KEY = 'bd_test_bridge_key';
let server: http.Server;
let url: string;
let tmp: string;
const seen: Array<{ method?: string; auth?: string; session?: string }> = [];

/** One MCP server per request (the SDK's stateless mode): tools `echo` and `boom`. */
function mcpServer(): Server {
  const s = new Server({ name: 'test-engine', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'echo', description: 'says it back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'boom', description: 'fails', inputSchema: { type: 'object' } },
    ],
  }));
  s.setRequestHandler(CallToolRequestSchema, async (req) =>
    req.params.name === 'echo'
      ? { content: [{ type: 'text', text: `echo: ${String(req.params.arguments?.text)}` }] }
      : { isError: true, content: [{ type: 'text', text: 'session_not_found: no such session' }] },
  );
  return s;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-cli-mcp-'));
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', async () => {
      const parsed = body ? (JSON.parse(body) as { method?: string }) : undefined;
      seen.push({ method: parsed?.method ?? req.method, auth: req.headers.authorization, session: req.headers['mcp-session-id'] as string | undefined });
      if (req.url !== '/mcp') return void res.writeHead(404).end();
      if (req.headers.authorization !== `Bearer ${KEY}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'unauthorized', message: 'missing or invalid API key' }));
        return;
      }
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const s = mcpServer();
      res.on('close', () => void s.close());
      await s.connect(transport);
      await transport.handleRequest(req, res, parsed);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function bridge(key: string): StdioClientTransport {
  const env = { ...baseEnv(path.join(tmp, 'config')), BROWSERDECK_URL: url, KERNEL_API_KEY: key } as Record<string, string>;
  return new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'pipe' });
}

describe('browserdeck mcp (stdio bridge)', () => {
  it('serves the HTTP server tools over stdio: list, call, a tool error', async () => {
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(bridge(KEY));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['boom', 'echo']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: hi' }] });
    expect(await client.callTool({ name: 'boom', arguments: {} })).toMatchObject({ isError: true, content: [{ text: 'session_not_found: no such session' }] });
    await client.close();
    // Every request carried the key; the negotiated protocol version went along after initialize.
    expect(seen.filter((s) => s.method === 'tools/call').every((s) => s.auth === `Bearer ${KEY}`)).toBe(true);
    expect(seen.map((s) => s.method)).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']));
  });

  it('a wrong key: the client gets one error naming the fix, and the key is not printed', async () => {
    const transport = bridge('bd_wrong_key');
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow('the engine refused the API key (HTTP 401): check KERNEL_API_KEY or run `browserdeck login`');
    await client.close();
    expect(stderr).toContain('HTTP 401');
    expect(stderr).not.toContain('bd_wrong_key');
  });
});
