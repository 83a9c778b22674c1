/**
 * Wire schemas of WebMCP on a session (Kernel spec §14): the browser-wide snapshot of the tools
 * pages registered (`GET /browsers/{id}/webmcp/tools`, the newer "generation 2" shape with MCP
 * style `tool` metadata) and one invocation (`POST /browsers/{id}/webmcp/invoke`). Every value a
 * page provides (names, schemas, annotations, output) is untrusted.
 */
import { Type, type Static } from '@sinclair/typebox';

export const WebMcpParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const WebMcpCustomToolParamSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255 }),
  tool: Type.String({ minLength: 1, maxLength: 255 }),
});

export const WebMcpToolsQuerySchema = Type.Object({
  /** Only page-provided tools (custom tools are not offered by this engine, so it changes nothing). */
  exclude_custom: Type.Optional(Type.Boolean()),
  jwt: Type.Optional(Type.String()),
});

const Json = Type.Unknown();

export const WebMcpToolSourceSchema = Type.Object({
  window_id: Type.Integer(),
  tab_id: Type.Integer(),
  page_url: Type.String(),
  page_title: Type.String(),
  frame: Type.Union([Type.Object({ frame_id: Type.Integer(), url: Type.String() }), Type.Null()]),
});

export const WebMcpToolSchema = Type.Object({
  tool_ref: Type.String(),
  tool: Type.Object({
    name: Type.String(),
    description: Type.String(),
    inputSchema: Type.Record(Type.String(), Json),
    annotations: Type.Optional(
      Type.Object({
        autosubmit: Type.Optional(Type.Boolean()),
        consequentialHint: Type.Optional(Type.Boolean()),
        readOnlyHint: Type.Optional(Type.Boolean()),
        untrustedContentHint: Type.Optional(Type.Boolean()),
      }),
    ),
  }),
  source: WebMcpToolSourceSchema,
});
export type WebMcpTool = Static<typeof WebMcpToolSchema>;

export const WebMcpToolListSchema = Type.Object({ tools: Type.Array(WebMcpToolSchema) });

/** Inputs up to 1 MiB serialized (the body limit adds 4 KiB for the rest). */
export const WEBMCP_INPUT_MAX_BYTES = 1024 * 1024;

export const WebMcpInvokeSchema = Type.Object({
  tool_ref: Type.String({ minLength: 1, maxLength: 256 }),
  input: Type.Record(Type.String(), Json),
  timeout_sec: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
});

export const WebMcpInvocationResultSchema = Type.Object({
  invocation_id: Type.String(),
  status: Type.Union([Type.Literal('completed'), Type.Literal('canceled'), Type.Literal('error'), Type.Literal('awaiting_submission')]),
  error_text: Type.Optional(Type.String()),
  output: Type.Optional(Json),
});
export type WebMcpInvocationResult = Static<typeof WebMcpInvocationResultSchema>;

/** 504: the invocation began but its result could not be observed; never retried by the server. */
export const WebMcpInvocationFailureSchema = Type.Object({
  code: Type.Literal('outcome_unknown'),
  message: Type.String(),
  invocation_id: Type.Optional(Type.String()),
});
