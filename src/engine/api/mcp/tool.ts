/**
 * One MCP tool: its name, description, input (a zod shape the SDK validates and publishes as JSON
 * Schema; limits the API enforces are left to the API, which answers them with its own code) and
 * what it does with the engine's API. A failed API call becomes an MCP tool error (`isError`)
 * whose text is the API's Error object, so an agent sees the same `code` a client would.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z, ZodRawShape } from 'zod';
import { ApiCallError, type EngineCall } from './engine-call.js';
import type { DocsIndex } from './docs-index.js';

/** What a tool works with: the API as its caller, and the engine's in-process signals. */
export interface ToolContext {
  api: EngineCall;
  signal: AbortSignal;
  docs: DocsIndex;
}

export interface ToolDef<S extends ZodRawShape = ZodRawShape> {
  name: string;
  description: string;
  input: S;
  /** MCP hints: reads only (`readOnlyHint`), or removes something (`destructiveHint`). */
  kind: 'read' | 'write' | 'destructive';
  run(args: z.objectOutputType<S, z.ZodTypeAny>, ctx: ToolContext): Promise<CallToolResult>;
}

export function defineTool<S extends ZodRawShape>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}

/** A tool's answer as pretty JSON text. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value ?? null, null, 2) }] };
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A tool error: the API's Error object (with its HTTP status), or a message of the tool's own. */
export function toolError(err: unknown): CallToolResult {
  const body =
    err instanceof ApiCallError
      ? { status: err.status, code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) }
      : err instanceof ToolFailure
        ? { code: err.code, message: err.message }
        : { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** A failure the tool itself reports, with a code of its own (the API's codes come as `ApiCallError`). */
export class ToolFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Arguments that each pass the schema but do not go together (both `profile_name` and `profile_id`). */
export class ToolInputError extends ToolFailure {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

export function registerTools(server: McpServer, tools: ToolDef[], ctx: Omit<ToolContext, 'signal'>): void {
  for (const tool of tools) {
    const annotations: ToolAnnotations = {
      readOnlyHint: tool.kind === 'read',
      destructiveHint: tool.kind === 'destructive',
      openWorldHint: false,
    };
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.input, annotations }, (async (
      args: Record<string, unknown>,
      extra: { signal: AbortSignal },
    ) => {
      try {
        return await tool.run(args as never, { ...ctx, signal: extra.signal });
      } catch (err) {
        return toolError(err);
      }
    }) as never);
  }
}
