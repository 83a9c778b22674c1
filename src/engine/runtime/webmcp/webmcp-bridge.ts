/**
 * `webmcp.listTools()` and `webmcp.invokeTool()` for code in a Playwright executor or the REPL
 * (spec §7.1, §9): the jailed child asks over its channel (`{type:'webmcp', reqId, callId?,
 * op, args}`, webmcp-client.mjs; the shape checked by the channel, runner-messages.ts) and the engine answers with the same operations as the HTTP
 * routes (runtime/webmcp/webmcp-tools.ts), for the child's own session only. Everything in a
 * request comes from tenant code: it is checked like an HTTP body, and at most a few requests
 * run at once per child.
 */
import type { TSchema } from '@sinclair/typebox';
import type { SessionHandle } from '../session/session-handle.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { WEBMCP_INPUT_MAX_BYTES } from '../../../shared/wire/session-webmcp.js';
import { OutcomeUnknown, WebMcpUnavailable } from '../cdp/webmcp-hub.js';
import { invokeTool, listTools } from './webmcp-tools.js';
import type { CdpToolRunner } from './custom-invoke.js';
import type { RunnerChannel } from '../sandbox/runner-channel.js';
import type { WebMcpRequestMessage } from '../code-runner/runner-messages.js';

/** A request (`callId`: the executor call the code belongs to; the REPL sends none). */
export type WebMcpRequest = WebMcpRequestMessage;

type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string; invocation_id?: string } };

const MAX_IN_FLIGHT = 8;
const DEFAULT_TIMEOUT_SEC = 60;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

async function perform(handle: SessionHandle, cdpRunner: () => CdpToolRunner, op: unknown, args: unknown): Promise<unknown> {
  const a = isObject(args) ? args : {};
  if (op === 'list') return listTools(handle, a.excludeCustom === true);
  if (op !== 'invoke') throw DomainError.badRequest('unknown webmcp operation: use listTools or invokeTool');
  const { toolRef, input = {}, timeoutSec = DEFAULT_TIMEOUT_SEC } = a;
  if (typeof toolRef !== 'string' || toolRef.length === 0 || toolRef.length > 256)
    throw DomainError.invalidField('toolRef', 'must be a tool_ref from webmcp.listTools()');
  if (!isObject(input)) throw DomainError.invalidField('input', 'must be an object');
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(input));
  } catch {
    throw DomainError.invalidField('input', 'must be JSON-serializable');
  }
  if (size > WEBMCP_INPUT_MAX_BYTES) throw DomainError.invalidField('input', 'must be at most 1 MiB serialized');
  if (!Number.isInteger(timeoutSec) || (timeoutSec as number) < 1 || (timeoutSec as number) > 120)
    throw DomainError.invalidField('timeoutSec', 'must be an integer from 1 to 120');
  // Cloned through JSON: the engine keeps nothing that came from the child but plain data.
  return invokeTool(handle, toolRef, JSON.parse(JSON.stringify(input)) as Record<string, unknown>, timeoutSec as number, cdpRunner);
}

function failure(err: unknown): Answer {
  if (err instanceof OutcomeUnknown)
    return { ok: false, error: { code: 'outcome_unknown', message: err.message, ...(err.invocationId && { invocation_id: err.invocationId }) } };
  if (err instanceof WebMcpUnavailable)
    return { ok: false, error: { code: 'webmcp_unavailable', message: `this engine's Chromium does not offer WebMCP (${err.message})` } };
  if (err instanceof DomainError) return { ok: false, error: { code: err.code, message: err.message } };
  return { ok: false, error: { code: 'webmcp_error', message: err instanceof Error ? err.message : String(err) } };
}

/**
 * Answers the child's webmcp requests for `handle`'s session. `cdpRunner`: where the session's
 * CDP-backed custom tools run. `accepts`: whether a request may run now (an executor only
 * serves the call that is running, not code a timeout abandoned).
 */
export function serveWebMcp<S extends TSchema>(
  channel: RunnerChannel<S>,
  handle: SessionHandle,
  cdpRunner: () => CdpToolRunner,
  accepts: (m: WebMcpRequest) => boolean = () => true,
): void {
  let inFlight = 0;
  channel.on((message: unknown) => {
    if (!isObject(message) || message.type !== 'webmcp') return;
    const m = message as WebMcpRequest;
    const reply = (answer: Answer) => channel.send({ type: 'webmcp-answer', reqId: m.reqId, ...answer });
    if (!accepts(m)) return reply({ ok: false, error: { code: 'call_ended', message: 'the call this code belongs to has ended (timed out)' } });
    if (inFlight >= MAX_IN_FLIGHT)
      return reply({ ok: false, error: { code: 'webmcp_busy', message: `at most ${MAX_IN_FLIGHT} webmcp calls run at once; await the earlier ones` } });
    inFlight++;
    void perform(handle, cdpRunner, m.op, m.args)
      .then((value): Answer => ({ ok: true, value }), failure)
      .then(reply)
      .catch(() => {})
      .finally(() => inFlight--);
  });
}
