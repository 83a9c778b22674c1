/**
 * The MCP server one request talks to: every tool and resource, bound to that request's caller.
 * The transport is stateless (one server per POST, as the SDK recommends for a server that needs
 * no server-to-client stream), so each message is authenticated on its own and any engine node
 * can answer it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { EngineCall } from './engine-call.js';
import type { DocsIndex } from './docs-index.js';
import { registerTools, type ToolDef } from './tool.js';
import { browserTools } from './tools-browsers.js';
import { appTools } from './tools-apps.js';
import { pageTools } from './tools-page.js';
import { inspectTools } from './tools-inspect.js';
import { docsTools } from './tools-docs.js';
import { registerResources } from './resources.js';

export const MCP_TOOLS: ToolDef[] = [...browserTools, ...pageTools, ...inspectTools, ...appTools, ...docsTools];

const INSTRUCTIONS =
  'Browserdeck runs real Chromium sessions. create_browser starts one (session_id); drive it with navigate, snapshot, click and type, ' +
  'or execute_playwright_code with a `page` in scope; take_screenshot to see it; get_live_view_url to hand it to a human; ' +
  'delete_browser when done. search_docs answers questions about Browserdeck.';

/** `version`: the engine's, passed in (api/mcp/ imports nothing of the engine root: no folder cycle). */
export function mcpServerFor(api: EngineCall, docs: DocsIndex, version: string): McpServer {
  const server = new McpServer({ name: 'browserdeck', version }, { instructions: INSTRUCTIONS });
  registerTools(server, MCP_TOOLS, { api, docs });
  registerResources(server, api);
  return server;
}
