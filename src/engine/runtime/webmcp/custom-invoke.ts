/**
 * Runs one custom tool (§14.3). A page-backed tool runs in the document it matched (the tab's
 * top-level document, or a frame): the batch's source is evaluated again in the engine's
 * isolated world of that document (Chromium keeps one per document and name) — the page's DOM
 * and storage, not its JavaScript globals, so the page's own scripts can neither see nor tamper
 * with the tool — and the definition's `execute(input)` is awaited. A CDP-backed tool runs in
 * the session's tool runner instead. Either way the output crosses as JSON text, so its size is
 * known before it is parsed: over 240 KiB is an error, not a truncation. The result has the
 * page tools' semantics: a throw is `status: error`, no answer in time or the document going
 * away is OutcomeUnknown (504), never retried.
 */
import { randomBytes } from 'node:crypto';
import { OutcomeUnknown, type ToolResponse, type WebMcpHub } from '../cdp/webmcp-hub.js';
import { definitionsExpression, type EvaluateResult } from './custom-source.js';
import type { CustomTool } from './custom-tools.js';

export const CUSTOM_OUTPUT_MAX_BYTES = 240 * 1024;
const WORLD_NAME = 'browserdeck-webmcp';
/**
 * Where a session's CDP-backed tools run: its tool runner (code-runner/webmcp-tool-runner.ts),
 * handed in by the wiring above both folders (api/session-runners.ts). Answers the tool's output
 * as JSON text or its error; throws OutcomeUnknown when no answer can be had.
 */
export interface CdpToolRunner {
  invoke(
    job: { source: string; index: number; targetId: string; input: Record<string, unknown> },
    timeoutMs: number,
    invocationId: string,
  ): Promise<{ json?: string } | ToolResponse>;
}

const newInvocationId = () => `inv_${randomBytes(12).toString('base64url')}`;

function invokeExpression(tool: CustomTool, input: Record<string, unknown>): string {
  return `(async () => {
  const defs = ${definitionsExpression(tool.batch.source)};
  const def = Array.isArray(defs) ? defs[${tool.index}] : undefined;
  if (!def || typeof def.execute !== 'function') throw new Error('the tool definition no longer evaluates to an execute function');
  const output = await def.execute(${JSON.stringify(input)});
  return output === undefined ? undefined : JSON.stringify(output);
})()`;
}

/** A tool's output as JSON text (undefined: it returned nothing) → the result; over 240 KiB is an error. */
function outputOf(json: unknown): ToolResponse {
  if (typeof json !== 'string') return { status: 'Completed' };
  const bytes = Buffer.byteLength(json);
  if (bytes > CUSTOM_OUTPUT_MAX_BYTES)
    return { status: 'Error', errorText: `the tool's output is ${bytes} bytes of JSON, over the ${CUSTOM_OUTPUT_MAX_BYTES}-byte (240 KiB) limit` };
  return { status: 'Completed', output: JSON.parse(json) };
}

/**
 * Invokes a CDP-backed `tool` on tab `targetId` in the session's tool runner (Node, in the
 * session's jail, with the REPL's helpers: code-runner/webmcp-tool-runner.ts).
 */
export async function invokeCdpCustomTool(
  runner: CdpToolRunner,
  targetId: string,
  tool: CustomTool,
  input: Record<string, unknown>,
  timeoutMs: number,
): Promise<ToolResponse & { invocationId: string }> {
  const invocationId = newInvocationId();
  const r = await runner.invoke({ source: tool.batch.source, index: tool.index, targetId, input }, timeoutMs, invocationId);
  return { invocationId, ...('status' in r ? r : outputOf(r.json)) };
}

/** Invokes `tool` in document `frameId` (a tab's top-level document or a frame) through hub attachment `sessionId`. */
export async function invokeCustomTool(
  hub: WebMcpHub,
  target: { sessionId: string; frameId: string },
  tool: CustomTool,
  input: Record<string, unknown>,
  timeoutMs: number,
  ended: AbortSignal,
): Promise<ToolResponse & { invocationId: string }> {
  const invocationId = newInvocationId();
  let world: number;
  try {
    ({ executionContextId: world } = await hub.send('Page.createIsolatedWorld', { frameId: target.frameId, worldName: WORLD_NAME }, target.sessionId));
  } catch (err) {
    throw new OutcomeUnknown(`the tool's document went away: ${(err as Error).message}`);
  }
  let timer: NodeJS.Timeout | undefined;
  let offDetach: (() => void) | undefined;
  let onEnded: (() => void) | undefined;
  try {
    const r = await new Promise<EvaluateResult>((resolve, reject) => {
      timer = setTimeout(() => reject(new OutcomeUnknown(`no result within ${timeoutMs / 1000} s`, invocationId)), timeoutMs);
      offDetach = hub.onDetach(target.sessionId, () => reject(new OutcomeUnknown('the tab of the tool closed before it answered', invocationId)));
      onEnded = () => reject(new OutcomeUnknown('the session ended', invocationId));
      ended.addEventListener('abort', onEnded, { once: true });
      hub
        .send(
          'Runtime.evaluate',
          // `timeout` stops a synchronous endless loop in the page; the timer above answers first.
          { expression: invokeExpression(tool, input), contextId: world, awaitPromise: true, returnByValue: true, timeout: timeoutMs + 1000 },
          target.sessionId,
          timeoutMs + 5000,
        )
        .then(resolve, (err: Error) => reject(new OutcomeUnknown(`the tool's document went away before it answered: ${err.message}`, invocationId)));
    });
    if (r.exceptionDetails) {
      const text = r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? 'the tool failed';
      return { invocationId, status: 'Error', errorText: text.slice(0, 4000) };
    }
    return { invocationId, ...outputOf(r.result.value) };
  } finally {
    clearTimeout(timer);
    offDetach?.();
    if (onEnded) ended.removeEventListener('abort', onEnded);
  }
}
