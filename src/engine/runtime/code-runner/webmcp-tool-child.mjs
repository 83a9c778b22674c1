/**
 * Runs CDP-backed WebMCP custom tools (spec §14.3: "CDP-backed tools execute via CDP and can use
 * all browser REPL tools"): one long-lived Node process per session, started by
 * webmcp-tool-runner.ts inside the session's jail like the REPL (runner-launch.ts), connected
 * to the browser with Playwright.
 *
 * For each invocation the batch's source is evaluated again, in a scope of its own where the
 * REPL's names are bound to the tab the tool was invoked on: `page` (that tab), `context`,
 * `browser`, `playwright`, `targetId`, `gotoUrl`, `click`, `fillInput`,
 * `accessibilitySnapshot`, `listTabs`, `newTab`, `switchTab`, `closeTab`, `cdp`, `webmcp`.
 * Then the definition's `execute(input, scope)` is awaited and its output sent as JSON text
 * (the engine checks its size). Invocations run concurrently, each with its own scope, so one
 * tool switching tabs never moves another's `page`.
 *
 * Messages in: `{type:'init', cdpUrl, playwright, codeCache?, forward?, title?}`, then any number of
 * `{type:'invoke', callId, source, index, input, targetId, cdpUrl}`. Out: `{type:'ready'}`,
 * `{type:'answer', callId, ok: true, json?}` or `{type:'answer', callId, ok: false, error}`. The
 * channel is a pipe at fd 3 of length-prefixed JSON (../sandbox/frame-channel.mjs), not Node's
 * IPC: tool code finds no `process.send`, and the engine checks whatever reaches it
 * (sandbox/runner-channel.ts).
 */
import { browserConnection, browserHelpers, pageById } from './browser-helpers.mjs';
import { webmcpClient } from './webmcp-client.mjs';
import { parentChannel } from '../sandbox/frame-channel.mjs';

let conn;

/**
 * The source's definitions, evaluated with `scope`'s names in reach (a `with` block: the
 * source is an expression, and a Function body is sloppy-mode code unless it says otherwise).
 * The newline before `)` ends a trailing line comment of the source.
 */
function definitions(source, scope) {
  return new Function('__scope__', `with (__scope__) { return (\n${source}\n); }`)(scope);
}

async function invoke(m) {
  conn.retarget(m.cdpUrl);
  const browser = await conn.connect();
  const page = await pageById(browser, m.targetId);
  if (!page) throw new Error(`the tab of the tool (${m.targetId}) is not open any more`);
  const state = { connect: () => conn.connect(), current: page };
  const scope = { ...browserHelpers(state), targetId: m.targetId, webmcp: webmcp.webmcpFor(undefined) };
  for (const [name, get] of Object.entries({
    browser: () => conn.browser,
    context: () => state.current?.context(),
    page: () => state.current,
    playwright: () => conn.playwright,
  }))
    Object.defineProperty(scope, name, { get, enumerable: true });
  const defs = definitions(m.source, scope);
  const def = Array.isArray(defs) ? defs[m.index] : undefined;
  if (!def || typeof def.execute !== 'function') throw new Error('the tool definition no longer evaluates to an execute function');
  const output = await def.execute(m.input, scope);
  return output === undefined ? undefined : JSON.stringify(output);
}

/** Characters of an error kept in an answer. */
const ERROR_KEEP = 64 * 1024;

const parent = parentChannel((m) => {
  if (m.type === 'webmcp-answer') {
    webmcp.answer(m);
  } else if (m.type === 'init') {
    conn = browserConnection(m);
    parent.limit(m.limit);
    if (m.title) process.title = m.title;
    parent.send({ type: 'ready' });
  } else if (m.type === 'invoke') {
    const fail = (error) => ({ type: 'answer', callId: m.callId, ok: false, error: String(error).slice(0, ERROR_KEEP) });
    void invoke(m).then(
      (json) =>
        parent.sendOr({ type: 'answer', callId: m.callId, ok: true, ...(json !== undefined && { json }) }, (err) =>
          fail(`the tool's output is too large to send: ${err.message}`),
        ),
      (err) => parent.send(fail(err instanceof Error ? (err.stack ?? err.message) : String(err))),
    );
  }
});
const webmcp = webmcpClient((m, done) => parent.send(m, done));
