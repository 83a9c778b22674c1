/**
 * Evaluates a custom tool batch's `source` (§14.3) inside the session's browser — a hidden page
 * of its default context (cdp/hidden-page.ts), i.e. in the session's jail — and returns what
 * the definitions say about themselves as plain JSON. Tenant JavaScript never runs in the
 * engine: no `eval`, no `vm`; the engine only reads the JSON the page answers. The same
 * source is evaluated again in the matching page for each invocation (custom-invoke.ts).
 */
import type { SessionHandle } from '../session/session-handle.js';
import { SessionCdpSlot } from '../cdp/session-cdp.js';
import { HiddenPage } from '../cdp/hidden-page.js';
import { DomainError } from '../../../shared/errors/domain-error.js';

/** Longest the browser may spend evaluating a source (an endless loop is terminated); tests shorten it. */
const EVALUATE_TIMEOUT_MS = 10_000;
const MAX_MESSAGE = 2000;

/**
 * The expression that yields the source's array of definitions. The newline before `)` ends a
 * trailing line comment of the source.
 */
export function definitionsExpression(source: string): string {
  return `(\n${source}\n)`;
}

function describeExpression(source: string): string {
  return `(() => {
  const defs = ${definitionsExpression(source)};
  if (!Array.isArray(defs)) throw new TypeError('source must evaluate to an array of tool definitions, not ' + (defs === null ? 'null' : typeof defs));
  const plain = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  return defs.map((d) => (d === null || typeof d !== 'object' ? { notObject: true } : { kind: d.kind, match: plain(d.match), tool: plain(d.tool), execute: typeof d.execute }));
})()`;
}

/** What `Runtime.evaluate` answers with `returnByValue` (also for custom-invoke.ts). */
export interface EvaluateResult {
  result: { value?: unknown };
  exceptionDetails?: { exception?: { description?: string }; text?: string };
}

/** The definitions the source describes (unchecked JSON); 422 when it throws or does not finish. */
export async function describeSource(handle: SessionHandle, source: string, timeoutMs = EVALUATE_TIMEOUT_MS): Promise<unknown> {
  const page = await HiddenPage.open(handle.scope.get(SessionCdpSlot)).catch((err: Error) => {
    throw new DomainError(503, 'browser_unavailable', `the session's browser cannot evaluate the source right now: ${err.message}`, [], { afterSeconds: 1 });
  });
  try {
    let r: EvaluateResult;
    try {
      r = await page.send(
        'Runtime.evaluate',
        { expression: describeExpression(source), returnByValue: true, awaitPromise: false, timeout: timeoutMs },
        timeoutMs + 5000,
      );
    } catch (err) {
      throw DomainError.unprocessable(`the source could not be evaluated in the browser: ${(err as Error).message}`, 'invalid_custom_tool_source');
    }
    if (r.exceptionDetails) {
      const text = r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? 'evaluation failed';
      throw DomainError.unprocessable(`the source threw while it was evaluated: ${text.slice(0, MAX_MESSAGE)}`, 'invalid_custom_tool_source');
    }
    return r.result.value;
  } finally {
    await page.close();
  }
}
