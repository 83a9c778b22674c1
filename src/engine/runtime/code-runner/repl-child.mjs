/**
 * A session's browser REPL (spec §9): one long-lived Node process, started by session-repl.ts
 * inside the session's jail (runner-launch.ts). Each call's code is a new cell evaluated through
 * this process's own V8 inspector in REPL mode — the mode of the DevTools console — so top-level
 * `let/const/function/class` bindings persist (and may be declared again), top-level `await`
 * works, and static `import`/`export` or a top-level `return` are syntax errors. `import()` is
 * rewritten to a function resolving from this file (the inspector's scripts have no module
 * loader of their own), so `import('playwright-core')` and Node's builtins load.
 *
 * Globals for the code: `repl.write(text)`, `repl.emitImage(data, mimeType?)`, `console`, the
 * browser (`browser`, `context`, `page` — the current tab), `gotoUrl`, `click`, `fillInput`,
 * `accessibilitySnapshot`, `listTabs`, `newTab`, `switchTab`, `closeTab`, `cdp(method, params)`
 * (raw CDP on the current tab; `cdp.browser(...)` on the browser), `playwright` (the module),
 * `webmcp` (`listTools`, `invokeTool`; webmcp-client.mjs).
 *
 * Messages in: `{type:'init', cdpUrl, playwright, codeCache?, forward?, title?}`, then `{type:'run', callId,
 * code, activeTargetId?, cdpUrl}` one at a time (`cdpUrl`: the browser's current address, new after a
 * crash restart). Out: `{type:'ready'}`, `{type:'content', callId, item}`
 * in order, `{type:'answer', callId, success, error?, stack?}`. An unhandled async exception ends
 * the process (Node's default): the engine reports the REPL terminated. The channel is a pipe at
 * fd 3 of length-prefixed JSON (../sandbox/frame-channel.mjs), not Node's IPC: the code finds no
 * `process.send`, and the engine checks whatever reaches it (sandbox/runner-channel.ts).
 */
import inspector from 'node:inspector';
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { webmcpClient } from './webmcp-client.mjs';
import { parentChannel } from '../sandbox/frame-channel.mjs';
import { allPages, browserConnection, browserHelpers, pageById } from './browser-helpers.mjs';

const TEXT_CAP = 1024 * 1024;
const IMAGE_CAP = 8 * 1024 * 1024;
/** Characters of an error or stack kept when the whole answer is over the engine's message limit. */
const ERROR_KEEP = 64 * 1024;

/** The tab `page` stands for; switchTab and newTab change it, closing it falls back to the active tab. */
let current;
/** The call that content belongs to (output of code still running from an earlier call goes to it too). */
let callId;
let budget = { text: TEXT_CAP, image: IMAGE_CAP, truncated: false };

function emit(item, size, kind) {
  if (!callId) return;
  if (size > budget[kind]) {
    if (!budget.truncated) parent.send({ type: 'content', callId, truncated: true });
    budget.truncated = true;
    return;
  }
  budget[kind] -= size;
  // Over the engine's message limit for one message: dropped, and the call's content says so.
  parent.sendOr({ type: 'content', callId, item }, () => ({ type: 'content', callId, truncated: true }));
}

function channel(name) {
  return new Writable({
    write(chunk, _enc, done) {
      const text = String(chunk);
      emit({ type: 'text', channel: name, text }, text.length, 'text');
      done();
    },
  });
}

/** Made at init; its `connect()` is the helpers' `connect`. */
let conn;
const connect = () => conn.connect();

/** Binds `page` for a call: the tab switched to, else the browser's active tab, else a new one. */
async function bind(activeTargetId) {
  const b = await connect();
  if (current && !current.isClosed()) return;
  current = (activeTargetId && (await pageById(b, activeTargetId))) || allPages(b)[0] || (await b.contexts()[0].newPage());
}

const helpers = {
  repl: {
    write: (text) => void emit({ type: 'text', channel: 'write', text: String(text) }, String(text).length, 'text'),
    emitImage(data, mimeType = 'image/png') {
      const b64 = Buffer.isBuffer(data) || data instanceof Uint8Array ? Buffer.from(data).toString('base64') : String(data);
      emit({ type: 'image', mime_type: String(mimeType), data_b64: b64 }, b64.length, 'image');
    },
  },
  ...browserHelpers({
    connect,
    get current() {
      return current;
    },
    set current(p) {
      current = p;
    },
  }),
};

const parent = parentChannel((m) => {
  if (m.type === 'webmcp-answer') {
    webmcp.answer(m);
  } else if (m.type === 'init') {
    conn = browserConnection(m, () => (current = undefined));
    parent.limit(m.limit);
    if (m.title) process.title = m.title;
    parent.send({ type: 'ready' });
  } else if (m.type === 'run') {
    void run(m).then((answer) =>
      parent.sendOr({ type: 'answer', callId: m.callId, ...answer }, () => ({
        type: 'answer',
        callId: m.callId,
        success: answer.success,
        ...(answer.error !== undefined && { error: `${String(answer.error).slice(0, ERROR_KEEP)} [truncated]` }),
        ...(answer.stack !== undefined && { stack: `${String(answer.stack).slice(0, ERROR_KEEP)} [truncated]` }),
      })),
    );
  }
});
const webmcp = webmcpClient((m, done) => parent.send(m, done));

Object.assign(globalThis, helpers, { webmcp: webmcp.webmcpFor(undefined), __browserdeck_import__: (specifier) => import(specifier) });
globalThis.console = new Console({ stdout: channel('stdout'), stderr: channel('stderr') });
for (const [name, get] of Object.entries({
  browser: () => conn?.browser,
  context: () => current?.context(),
  page: () => current,
  playwright: () => conn?.playwright,
}))
  Object.defineProperty(globalThis, name, { get, configurable: true });

/** `import(` outside a property access becomes the module-relative loader (best effort: also inside strings). */
function rewriteImports(code) {
  return code.replace(/(?<![\w$.])import(\s*\()/g, '__browserdeck_import__$1');
}

const session = new inspector.Session();
session.connect();
function evaluate(expression) {
  return new Promise((resolve, reject) =>
    session.post('Runtime.evaluate', { expression, replMode: true, awaitPromise: true, silent: false }, (err, r) => (err ? reject(err) : resolve(r))),
  );
}

async function run(m) {
  callId = m.callId;
  // A restarted browser has another address (the engine sends the current one with each call).
  conn.retarget(m.cdpUrl);
  budget = { text: TEXT_CAP, image: IMAGE_CAP, truncated: false };
  try {
    await bind(m.activeTargetId);
  } catch (err) {
    // The browser is unreachable for now: the code still runs (it may not need it).
    globalThis.console.error(`[browserdeck] no browser connection: ${err.message}`);
  }
  try {
    const r = await evaluate(rewriteImports(m.code));
    if (!r.exceptionDetails) return { success: true };
    const description = r.exceptionDetails.exception?.description ?? r.exceptionDetails.text;
    return { success: false, error: description.split('\n')[0], stack: description };
  } catch (err) {
    return { success: false, error: err.message, stack: err.stack };
  }
}
