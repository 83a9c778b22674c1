/**
 * Wire schemas of WebMCP on a session (Kernel spec §14): the browser-wide snapshot of the tools
 * pages registered (`GET /browsers/{id}/webmcp/tools`, the newer "generation 2" shape with MCP
 * style `tool` metadata) and one invocation (`POST /browsers/{id}/webmcp/invoke`). Every value a
 * page provides (names, schemas, annotations, output) is untrusted.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';

export const WebMcpCustomToolParamSchema = Type.Object({
  id: SessionIdSchema,
  tool: Type.String({ minLength: 1, maxLength: 255 }),
});

export const WebMcpToolsQuerySchema = Type.Object({
  /** Only page-provided tools: no custom tools (§14.3). */
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
  /** Custom tools only: which definition (§14.3) and the CDP target of the tab it is exposed on. */
  custom: Type.Optional(Type.Object({ id: Type.String(), namespace: Type.String() })),
  target_id: Type.Optional(Type.String()),
});

/** The MCP-style annotation hints a tool may carry (never enforced). */
export const WEBMCP_ANNOTATION_KEYS = [
  'autosubmit',
  'consequentialHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
  'readOnlyHint',
  'untrustedContentHint',
] as const;

export const WebMcpToolMetadataSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  inputSchema: Type.Record(Type.String(), Json),
  outputSchema: Type.Optional(Type.Record(Type.String(), Json)),
  title: Type.Optional(Type.String()),
  annotations: Type.Optional(
    Type.Object({
      autosubmit: Type.Optional(Type.Boolean()),
      consequentialHint: Type.Optional(Type.Boolean()),
      destructiveHint: Type.Optional(Type.Boolean()),
      idempotentHint: Type.Optional(Type.Boolean()),
      openWorldHint: Type.Optional(Type.Boolean()),
      readOnlyHint: Type.Optional(Type.Boolean()),
      untrustedContentHint: Type.Optional(Type.Boolean()),
    }),
  ),
});
export type WebMcpToolMetadata = Static<typeof WebMcpToolMetadataSchema>;

export const WebMcpToolSchema = Type.Object({
  tool_ref: Type.String(),
  tool: WebMcpToolMetadataSchema,
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

/** A custom tool's `source` is at most this many UTF-8 bytes (§14.3). */
export const WEBMCP_CUSTOM_SOURCE_MAX_BYTES = 8_000_000;
export const WEBMCP_NAMESPACE_PATTERN = '^[A-Za-z0-9_.-]{1,128}$';

export const WebMcpCustomToolAddSchema = Type.Object({
  namespace: Type.String({ pattern: WEBMCP_NAMESPACE_PATTERN }),
  /** A JavaScript expression evaluating to a non-empty array of definitions; evaluated in the session's browser, never in the engine. */
  source: Type.String({ minLength: 1, maxLength: WEBMCP_CUSTOM_SOURCE_MAX_BYTES }),
  force_overwrite_namespace: Type.Optional(Type.Boolean()),
});

/** One custom tool definition as the API reports it (the execute function stays in its source). */
export const WebMcpCustomToolSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  match: Type.Object({ url_patterns: Type.Array(Type.String()) }),
  namespace: Type.String(),
  tool: WebMcpToolMetadataSchema,
});
export type WebMcpCustomTool = Static<typeof WebMcpCustomToolSchema>;

export const WebMcpCustomToolListSchema = Type.Object({ tools: Type.Array(WebMcpCustomToolSchema) });
