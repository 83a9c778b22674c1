/**
 * WebMCP on a session (Kernel spec §14.1, §14.2): `GET /browsers/{id}/webmcp/tools`, the tools
 * the session's pages registered across every tab and frame (`runtime/cdp/webmcp-hub.ts`), and
 * `POST /browsers/{id}/webmcp/invoke`, one call of one of them by its `tool_ref`. Custom tools
 * (§14.3) are not offered: their routes answer 422 `webmcp_custom_tools_unavailable`. A browser
 * without Chromium's WebMCP domain makes every route 422 `webmcp_unavailable`.
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { OutcomeUnknown, WebMcpHub, WebMcpUnavailable, type LiveTool } from '../runtime/cdp/webmcp-hub.js';
import {
  WEBMCP_INPUT_MAX_BYTES,
  WebMcpInvocationFailureSchema,
  WebMcpInvocationResultSchema,
  WebMcpInvokeSchema,
  WebMcpParamSchema as IdParam,
  WebMcpCustomToolParamSchema as CustomToolParam,
  WebMcpToolListSchema,
  WebMcpToolsQuerySchema,
  type WebMcpInvocationResult,
  type WebMcpTool,
} from '../../shared/wire/session-webmcp.js';

const DEFAULT_TIMEOUT_SEC = 60;
const STATUS: Record<string, WebMcpInvocationResult['status']> = { Completed: 'completed', Success: 'completed', Canceled: 'canceled', Error: 'error' };

function unavailable(err: unknown): unknown {
  if (err instanceof WebMcpUnavailable) {
    return ApiError.unprocessable(`this engine's Chromium does not offer WebMCP (${err.message})`, 'webmcp_unavailable');
  }
  return err;
}

/** The page URL without its fragment, as the source reports it. */
const withoutFragment = (url: string) => url.replace(/#.*$/s, '');

function annotationsOf(a: LiveTool['tool']['annotations']): WebMcpTool['tool']['annotations'] {
  if (!a) return undefined;
  return {
    ...(a.autosubmit !== undefined && { autosubmit: a.autosubmit }),
    ...(a.consequential !== undefined && { consequentialHint: a.consequential }),
    ...(a.readOnly !== undefined && { readOnlyHint: a.readOnly }),
    ...(a.untrustedContent !== undefined && { untrustedContentHint: a.untrustedContent }),
  };
}

async function snapshot(hub: WebMcpHub): Promise<WebMcpTool[]> {
  const { tools, targets } = await hub.list();
  const frameUrls = new Map<string, Promise<Map<string, string>>>();
  const urlsOf = (sessionId: string) => {
    let p = frameUrls.get(sessionId);
    if (!p) frameUrls.set(sessionId, (p = hub.frameUrls(sessionId)));
    return p;
  };
  const windows = new Map<string, Promise<number>>();
  const out = await Promise.all(
    tools.map(async (t): Promise<WebMcpTool | undefined> => {
      const tab = targets.get(t.tabId);
      if (!tab) return undefined;
      let w = windows.get(t.tabId);
      if (!w) windows.set(t.tabId, (w = hub.windowOf(t.tabId)));
      // A page target's id is its main frame's id: anything else is a frame inside the tab.
      const frame = t.tool.frameId === t.tabId ? null : { frame_id: hub.numberOf(t.tool.frameId), url: (await urlsOf(t.sessionId)).get(t.tool.frameId) ?? '' };
      return {
        tool_ref: t.ref,
        tool: {
          name: t.tool.name,
          description: t.tool.description ?? '',
          inputSchema: t.tool.inputSchema ?? { type: 'object', properties: {} },
          ...(t.tool.annotations && { annotations: annotationsOf(t.tool.annotations) }),
        },
        source: {
          window_id: await w,
          tab_id: hub.numberOf(t.tabId),
          page_url: withoutFragment(tab.url),
          page_title: tab.title,
          frame: frame && { ...frame, url: withoutFragment(frame.url) },
        },
      };
    }),
  );
  return out
    .filter((t): t is WebMcpTool => !!t)
    .sort((a, b) => a.source.tab_id - b.source.tab_id || (a.source.frame?.frame_id ?? 0) - (b.source.frame?.frame_id ?? 0));
}

export const sessionWebMcpFeature: Feature<'sessions'> = {
  name: 'session-webmcp',
  register(app, _ctx, { sessions }) {
    const tags = ['browser webmcp'];

    app.get(
      '/browsers/:id/webmcp/tools',
      { schema: { tags, params: IdParam, querystring: WebMcpToolsQuerySchema, response: { 200: WebMcpToolListSchema } } },
      async (req) => {
        const hub = WebMcpHub.of(await sessions.require(req.auth, req.params.id));
        return { tools: await snapshot(hub).catch((err) => Promise.reject(unavailable(err))) };
      },
    );

    app.post(
      '/browsers/:id/webmcp/invoke',
      {
        bodyLimit: WEBMCP_INPUT_MAX_BYTES + 4096,
        schema: { tags, params: IdParam, body: WebMcpInvokeSchema, response: { 200: WebMcpInvocationResultSchema, 504: WebMcpInvocationFailureSchema } },
      },
      async (req, reply) => {
        const session = await sessions.require(req.auth, req.params.id);
        const { tool_ref, input, timeout_sec } = req.body;
        if (Buffer.byteLength(JSON.stringify(input)) > WEBMCP_INPUT_MAX_BYTES) throw ApiError.invalidField('input', 'must be at most 1 MiB serialized');
        const hub = WebMcpHub.of(session);
        await hub.list().catch((err) => Promise.reject(unavailable(err)));
        const tool = hub.tool(tool_ref);
        if (!tool) {
          throw new ApiError(
            404,
            'tool_not_found',
            `no live WebMCP tool '${tool_ref}': its document closed or navigated, it was unregistered, or the browser restarted; list the tools again`,
          );
        }
        // Holds the session for as long as the tool runs (the inactivity timeout does not end it).
        const release = session.holdActive();
        try {
          const r = await hub.invoke(tool, input, (timeout_sec ?? DEFAULT_TIMEOUT_SEC) * 1000);
          const result: WebMcpInvocationResult = { invocation_id: r.invocationId, status: STATUS[r.status] ?? 'error' };
          if (r.errorText !== undefined) result.error_text = r.errorText;
          if (r.output !== undefined) result.output = r.output;
          return result;
        } catch (err) {
          if (!(err instanceof OutcomeUnknown)) throw err;
          return reply.status(504).send({ code: 'outcome_unknown', message: err.message, ...(err.invocationId && { invocation_id: err.invocationId }) });
        } finally {
          release();
        }
      },
    );

    const noCustomTools = async () => {
      throw ApiError.unprocessable(
        'custom WebMCP tools are not offered by this engine: register tools from the page with document.modelContext.registerTool',
        'webmcp_custom_tools_unavailable',
      );
    };
    app.get('/browsers/:id/webmcp/custom-tools', { schema: { tags, params: IdParam } }, async (req) => {
      await sessions.require(req.auth, req.params.id);
      return noCustomTools();
    });
    app.post('/browsers/:id/webmcp/custom-tools', { schema: { tags, params: IdParam } }, async (req) => {
      await sessions.require(req.auth, req.params.id);
      return noCustomTools();
    });
    app.delete('/browsers/:id/webmcp/custom-tools/:tool', { schema: { tags, params: CustomToolParam } }, async (req) => {
      await sessions.require(req.auth, req.params.id);
      return noCustomTools();
    });
  },
};
