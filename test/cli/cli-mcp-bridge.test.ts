/**
 * `browserdeck mcp`: the stdio bridge driven by the MCP SDK's own Client over
 * StdioClientTransport (as Claude Desktop or Goose start it), in front of a real engine's `/mcp`.
 * Proves the bridge carries the engine's tools over stdio — listing, a call that creates a
 * browser, a tool error with the API's code, a delete — and that a wrong key is one error line
 * for the client, not a hang. What each tool does is tested against `/mcp` itself (test/engine/mcp/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { BIN, baseEnv } from './run-cli.js';

let te: TestEngine;
let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-cli-mcp-'));
  te = await startTestEngine();
});

afterAll(async () => {
  await te?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function bridge(key: string): StdioClientTransport {
  const env = { ...baseEnv(path.join(tmp, 'config')), BROWSERDECK_URL: te.url, KERNEL_API_KEY: key } as Record<string, string>;
  return new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'pipe' });
}

const textOf = (r: unknown) => ((r as { content: Array<{ type: string; text?: string }> }).content.find((c) => c.type === 'text')?.text ?? '') as string;

describe('browserdeck mcp (stdio bridge to the engine)', () => {
  it("serves the engine's tools over stdio: list, create a browser, a tool error, delete", async () => {
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(bridge(te.adminKey));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['create_browser', 'list_browsers', 'delete_browser', 'execute_playwright_code', 'take_screenshot']),
      );

      const created = await client.callTool({ name: 'create_browser', arguments: { headless: true, timeout_seconds: 120 } });
      expect(created.isError, textOf(created)).toBeFalsy();
      const id = (JSON.parse(textOf(created)) as { session_id: string }).session_id;
      expect(te.engine.services.sessions.get(id)).toBeDefined();

      const missing = await client.callTool({ name: 'get_browser', arguments: { session_id: 'no-such-session' } });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('not_found');

      const deleted = await client.callTool({ name: 'delete_browser', arguments: { session_id: id } });
      expect(deleted.isError, textOf(deleted)).toBeFalsy();
      await expect.poll(() => te.engine.services.sessions.get(id), { timeout: 30_000 }).toBeUndefined();
    } finally {
      await client.close();
    }
  }, 120_000);

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
