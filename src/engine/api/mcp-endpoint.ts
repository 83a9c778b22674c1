/**
 * `/mcp`: the engine's MCP server over Streamable HTTP (the official SDK, stateless, JSON
 * answers). The route sits behind the API's own auth: a bearer API key (a project-scoped key acts
 * only in its project), the console's sign-in cookie, the project headers; no credential is the
 * API's 401. Tools call the API in process as that caller (`mcp/engine-call.ts`), so validation,
 * permissions, audit and error codes are the API's. Tools and resources: `mcp/mcp-server.ts`.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { route } from '../route.js';
import { ENGINE_VERSION } from '../engine-version.js';
import { EngineCall } from './mcp/engine-call.js';
import { DocsIndex } from './mcp/docs-index.js';
import { mcpServerFor } from './mcp/mcp-server.js';

/** A parsed JSON body (a message or a batch); anything else is left for the SDK to refuse. */
const jsonBody = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function' ? body : undefined;

export const mcpFeature: Feature = {
  name: 'mcp',
  register(app, ctx) {
    const docs = new DocsIndex();

    route(app, 'POST /mcp', async (req, reply) => {
      const server = mcpServerFor(new EngineCall(app, req), docs, ENGINE_VERSION);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(req.raw, reply.raw, jsonBody(req.body));
      } catch (err) {
        ctx.log.error({ err }, 'mcp request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(JSON.stringify({ code: 'internal_error', message: 'the MCP request failed' }));
        }
      }
    });

    // Stateless: no stream from the server to listen to, no MCP session to end.
    route(app, 'GET|DELETE /mcp', async (_req, reply) => {
      reply.header('allow', 'POST');
      throw new ApiError(405, 'method_not_allowed', 'this MCP endpoint is stateless: send each message with POST');
    });
  },
};
