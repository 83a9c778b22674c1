/**
 * WebMCP on a session (Kernel spec §14): `GET /browsers/{id}/webmcp/tools`, the tools the
 * session's pages registered across every tab and frame plus the custom tools matched on each
 * tab, and `POST /browsers/{id}/webmcp/invoke`, one call of one of them by its `tool_ref`
 * (both in `runtime/webmcp/webmcp-tools.ts`, shared with `webmcp.*` in code execution). Custom
 * tools (§14.3) are added, listed and deleted under `/webmcp/custom-tools`; their source is
 * evaluated in the session's browser, never in the engine. A browser without Chromium's WebMCP
 * domain makes the tools and invoke routes 422 `webmcp_unavailable`.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { OutcomeUnknown, WebMcpUnavailable } from '../runtime/cdp/webmcp-hub.js';
import { invokeTool, listTools } from '../runtime/webmcp/webmcp-tools.js';
import { CustomTools, CustomToolsSlot } from '../runtime/webmcp/custom-tools.js';
import { sessionRunners } from './session-runners.js';
import { WEBMCP_CUSTOM_SOURCE_MAX_BYTES, WEBMCP_INPUT_MAX_BYTES } from '../../shared/wire/session-webmcp.js';
import { route } from '../route.js';

const DEFAULT_TIMEOUT_SEC = 60;

function unavailable(err: unknown): unknown {
  if (err instanceof WebMcpUnavailable) {
    return ApiError.unprocessable(`this engine's Chromium does not offer WebMCP (${err.message})`, 'webmcp_unavailable');
  }
  return err;
}

export const sessionWebMcpFeature: Feature<'sessions'> = {
  name: 'session-webmcp',
  register(app, ctx, { sessions }) {
    // Tool runners end with their session (engine stop ends every session): no stop hook of their own.
    const { toolRunner } = sessionRunners(ctx);

    route(app, 'GET /browsers/:id/webmcp/tools', async (req) => {
      const session = await sessions.require(req.auth, req.params.id);
      return { tools: await listTools(session, req.query.exclude_custom ?? false).catch((err) => Promise.reject(unavailable(err))) };
    });

    route(app, 'POST /browsers/:id/webmcp/invoke', { bodyLimit: WEBMCP_INPUT_MAX_BYTES + 4096 }, async (req, reply) => {
      const session = await sessions.require(req.auth, req.params.id);
      const { tool_ref, input, timeout_sec } = req.body;
      if (Buffer.byteLength(JSON.stringify(input)) > WEBMCP_INPUT_MAX_BYTES) throw ApiError.invalidField('input', 'must be at most 1 MiB serialized');
      try {
        return await invokeTool(session, tool_ref, input, timeout_sec ?? DEFAULT_TIMEOUT_SEC, () => session.scope.get(toolRunner));
      } catch (err) {
        if (!(err instanceof OutcomeUnknown)) throw unavailable(err);
        return reply.status(504).send({ code: 'outcome_unknown', message: err.message, ...(err.invocationId && { invocation_id: err.invocationId }) });
      }
    });

    route(app, 'GET /browsers/:id/webmcp/custom-tools', async (req) => {
      const session = await sessions.require(req.auth, req.params.id);
      return { tools: CustomTools.existing(session)?.list() ?? [] };
    });

    // The JSON string of an 8,000,000-byte source may be longer than that (escapes): room for them.
    route(app, 'POST /browsers/:id/webmcp/custom-tools', { bodyLimit: 2 * WEBMCP_CUSTOM_SOURCE_MAX_BYTES + 64 * 1024 }, async (req, reply) => {
      const session = await sessions.require(req.auth, req.params.id);
      const { namespace, source, force_overwrite_namespace } = req.body;
      const bytes = Buffer.byteLength(source);
      if (bytes > WEBMCP_CUSTOM_SOURCE_MAX_BYTES)
        throw ApiError.invalidField('source', `must be at most ${WEBMCP_CUSTOM_SOURCE_MAX_BYTES} UTF-8 bytes (is ${bytes})`);
      if (!source.trim()) throw ApiError.invalidField('source', 'must be a JavaScript expression');
      // The added batch, not every tool: GET lists them all (Kernel's CLI reports this answer as "added").
      const tools = await session.scope.get(CustomToolsSlot).add(namespace, source, force_overwrite_namespace ?? false, ctx.config.customToolSourceTimeoutMs);
      return reply.status(201).send({ tools });
    });

    route(app, 'DELETE /browsers/:id/webmcp/custom-tools/:tool', async (req, reply) => {
      const session = await sessions.require(req.auth, req.params.id);
      if (!CustomTools.existing(session)?.delete(req.params.tool)) throw ApiError.notFound('custom WebMCP tool', req.params.tool);
      return reply.status(204).send();
    });
  },
};
