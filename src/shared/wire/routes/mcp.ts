/**
 * The engine's MCP server (`src/engine/api/mcp-endpoint.ts`, `src/engine/api/mcp/`): Streamable HTTP, stateless, so only POST
 * carries messages; GET (a server-to-client stream) and DELETE (ending an MCP session) answer
 * 405. Hidden from /openapi.json: the body is JSON-RPC, not a REST resource. Each tool call is
 * also audited as the API call it makes (service of that route), beside this row.
 */
import { defineRoutes } from './route-spec.js';

export const mcpRoutes = defineRoutes({
  'POST /mcp': {
    schema: { summary: 'Send an MCP message', hide: true },
    facts: { audit: 'mcp' },
  },
  'GET|DELETE /mcp': {
    schema: { summary: 'Refuse an MCP stream or session end (stateless server)', hide: true },
    facts: { audit: 'mcp' },
  },
});
