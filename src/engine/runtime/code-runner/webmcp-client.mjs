/**
 * The `webmcp` object code sees in a Playwright executor and in the REPL (spec §7.1, §9):
 * `listTools()` answers the browser-wide tool array, `invokeTool(toolRef, input = {},
 * {timeoutSec})` one invocation result (`{invocation_id, status, output?, error_text?}`). Both
 * ask the engine over the child's channel (sandbox/frame-channel.mjs; the engine's side is
 * webmcp-bridge.ts), which runs the same logic as the HTTP routes. An error carries the wire
 * `code` (`tool_not_found`, `outcome_unknown` with its `invocationId` — never retry that one
 * automatically, …).
 *
 * Plain JavaScript: it runs in the jailed child like the scripts that import it.
 */

/**
 * The client over `send` (the child's channel's): `answer` takes the engine's
 * `{type:'webmcp-answer'}` messages, `webmcpFor` makes the global.
 * @param {(message: unknown, done: (err?: Error | null) => void) => void} send
 */
export function webmcpClient(send) {
  let next = 0;
  const pending = new Map();

  function ask(callId, op, args) {
    return new Promise((resolve, reject) => {
      const reqId = ++next;
      pending.set(reqId, { resolve, reject });
      const failed = (err) => {
        pending.delete(reqId);
        reject(err);
      };
      try {
        // Over the engine's message limit (a huge input) throws here, in the caller's code.
        send({ type: 'webmcp', reqId, callId, op, args }, (err) => err && failed(err));
      } catch (err) {
        failed(err);
      }
    });
  }

  return {
    /** @param {any} m */
    answer(m) {
      const p = pending.get(m.reqId);
      if (!p) return;
      pending.delete(m.reqId);
      if (m.ok) p.resolve(m.value);
      else p.reject(Object.assign(new Error(m.error.message), { code: m.error.code, ...(m.error.invocation_id && { invocationId: m.error.invocation_id }) }));
    },
    /** The `webmcp` global; `callId` ties an executor call's requests to it (the REPL has none). */
    webmcpFor(callId) {
      return Object.freeze({
        listTools: () => ask(callId, 'list', {}),
        invokeTool(toolRef, input = {}, { timeoutSec } = {}) {
          // Plain JSON across: a value the wire cannot carry fails here, in the caller's code.
          return ask(callId, 'invoke', { toolRef, input: JSON.parse(JSON.stringify(input ?? {})), ...(timeoutSec !== undefined && { timeoutSec }) });
        },
      });
    },
  };
}
