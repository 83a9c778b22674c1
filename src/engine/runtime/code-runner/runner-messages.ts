/**
 * What each kind of runner may send the engine over its channel (sandbox/runner-channel.ts), as
 * TypeBox schemas: the runner's own code writes these, but the tenant's code runs in the same
 * process and can write anything to the pipe, so the engine checks every message against its
 * runner's union and stops a runner that sends something else. The children's side is in their
 * header comments (code-runner-child.mjs, repl-child.mjs, webmcp-tool-child.mjs,
 * webmcp-client.mjs).
 */
import { Type, type Static } from '@sinclair/typebox';

const CallId = Type.String({ maxLength: 64 });

/** `webmcp.listTools()` / `invokeTool()` from the code (webmcp-client.mjs); its fields are checked by webmcp/webmcp-bridge.ts. */
export const WebMcpRequestMessage = Type.Object({
  type: Type.Literal('webmcp'),
  reqId: Type.Number(),
  callId: Type.Optional(CallId),
  op: Type.Unknown(),
  args: Type.Unknown(),
});
export type WebMcpRequestMessage = Static<typeof WebMcpRequestMessage>;

const Ready = Type.Object({ type: Type.Literal('ready') });

/** A Playwright executor (code-runner-child.mjs). */
export const ExecutorMessage = Type.Union([
  Type.Object({ type: Type.Literal('bound'), callId: CallId, tab: Type.Object({ created: Type.Boolean(), target_id: Type.String({ maxLength: 256 }) }) }),
  Type.Object({ type: Type.Literal('output'), callId: CallId, stream: Type.Union([Type.Literal('stdout'), Type.Literal('stderr')]), text: Type.String() }),
  Type.Object({
    type: Type.Literal('answer'),
    callId: CallId,
    answer: Type.Object({ success: Type.Boolean(), result: Type.Optional(Type.Unknown()), error: Type.Optional(Type.String()) }),
  }),
  Type.Object({ type: Type.Literal('dropped') }),
  WebMcpRequestMessage,
]);
export type ExecutorMessage = Static<typeof ExecutorMessage>;

export const ReplContentItem = Type.Union([
  Type.Object({
    type: Type.Literal('text'),
    channel: Type.Union([Type.Literal('write'), Type.Literal('stdout'), Type.Literal('stderr')]),
    text: Type.String(),
  }),
  Type.Object({ type: Type.Literal('image'), mime_type: Type.String(), data_b64: Type.String() }),
]);

/** The REPL (repl-child.mjs). */
export const ReplMessage = Type.Union([
  Ready,
  Type.Object({ type: Type.Literal('content'), callId: CallId, item: Type.Optional(ReplContentItem), truncated: Type.Optional(Type.Boolean()) }),
  Type.Object({
    type: Type.Literal('answer'),
    callId: CallId,
    success: Type.Boolean(),
    error: Type.Optional(Type.String()),
    stack: Type.Optional(Type.String()),
  }),
  WebMcpRequestMessage,
]);
export type ReplMessage = Static<typeof ReplMessage>;

/** The WebMCP tool runner (webmcp-tool-child.mjs). */
export const ToolRunnerMessage = Type.Union([
  Ready,
  Type.Object({ type: Type.Literal('answer'), callId: CallId, ok: Type.Boolean(), json: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }),
  WebMcpRequestMessage,
]);
export type ToolRunnerMessage = Static<typeof ToolRunnerMessage>;
