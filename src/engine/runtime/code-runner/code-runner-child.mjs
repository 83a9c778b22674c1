/**
 * One Playwright executor (spec §7): a long-lived process started by executor.ts, inside the
 * session's sandbox when bwrap works (runner-launch.ts). It keeps one Playwright connection to
 * its session's browser across calls and runs each call's code — compiled by the engine — in a
 * new `vm` context, so every call starts with fresh JavaScript globals while the connection and
 * the executor's tab persist.
 *
 * Messages in: `{type:'init', cdpUrl, playwright, codeCache?, forward?, title?}` once, then
 * `{type:'run', callId, js, bind, trace?}` (one at a time; the engine serializes) and
 * `{type:'drop'}` after a timeout: the browser connection is closed so abandoned code can no
 * longer drive the browser, and the next call reconnects. Messages out: `{type:'bound', callId,
 * tab}` once `page` is chosen, `{type:'output', callId, stream, text}` as the code prints,
 * `{type:'answer', callId, answer}`, `{type:'dropped'}`. The code's `webmcp` global asks the engine
 * over the same channel (webmcp-client.mjs). The channel is a pipe at fd 3 of length-prefixed JSON
 * (../sandbox/frame-channel.mjs), not Node's IPC: the code finds no `process.send`, and the engine
 * checks whatever reaches it (sandbox/runner-channel.ts, runner-messages.ts). A message over the
 * engine's size limit (`init.limit`) is replaced by a short one saying so.
 * `bind`: `{targetId?}` — the tab to use (the engine picks the default executor's from the
 * browser's active tab, and remembers a named executor's); `{targetId: undefined, background}`
 * opens a tab, in the background for named executors.
 *
 * Plain JavaScript on purpose: it starts under bare `node` from sources, a packaged build and
 * inside the sandbox alike.
 */
import vm from 'node:vm';
import fs from 'node:fs';
import path from 'node:path';
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { webmcpClient } from './webmcp-client.mjs';
import { parentChannel } from '../sandbox/frame-channel.mjs';
import { loadPlaywright } from './load-playwright.mjs';

/** @type {{cdpUrl: string, playwright: string, codeCache?: string, forward?: {socket: string, port: number}, title?: string}} */
let init;
/** @type {Promise<any> | undefined} */
let connection;
let forwarding;
const OUTPUT_CAP = 1024 * 1024;
/** Characters of output per message: a few hundred KiB of JSON at most, far below any message limit. */
const OUTPUT_PIECE = 64 * 1024;
/** Characters of an error kept when the whole answer is over the engine's message limit. */
const ERROR_KEEP = 64 * 1024;

function connect() {
  connection ??= (async () => {
    if (init.forward && !forwarding) {
      const { listenForwarder } = await import('../sandbox/cdp-forwarder.mjs');
      forwarding = await listenForwarder(init.forward.socket, init.forward.port);
      forwarding.unref();
    }
    const { chromium } = loadPlaywright(init.playwright, init.codeCache);
    // noDefaults: keep the session's download behaviour (Playwright's default context would move
    // every later download into its own temp dir instead of /downloads).
    const browser = await chromium.connectOverCDP(init.cdpUrl, { noDefaults: true });
    browser.on('disconnected', () => (connection = undefined));
    for (const context of browser.contexts()) {
      for (const page of context.pages()) watchCrash(page);
      context.on('page', watchCrash);
    }
    return browser;
  })();
  connection.catch(() => (connection = undefined));
  return connection;
}

const targetIds = new WeakMap();
/**
 * Tabs whose renderer died (killed for memory by the session's limit, or crashed): they answer
 * no command until reloaded, so asking one its target id waited forever and the call with it
 * ("did not start within 60 s"). Until a reload they are never bound; a lookup passes over them.
 */
const crashed = new WeakSet();
/** How long a tab may take to say its target id (a renderer dying meanwhile never answers). */
const TARGET_ID_TIMEOUT_MS = 5_000;

/** @param {any} page */
function watchCrash(page) {
  page.on('crash', () => crashed.add(page));
  // Someone reloaded it (`page.reload()` brings a crashed tab back): it may be bound again.
  page.on('load', () => crashed.delete(page));
}

/** The CDP target id of a Playwright page (asked once per page). @param {any} page */
async function targetIdOf(page) {
  let id = targetIds.get(page);
  if (!id) {
    const s = await page.context().newCDPSession(page);
    let timer;
    try {
      const answer = s.send('Target.getTargetInfo');
      const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the tab did not answer')), TARGET_ID_TIMEOUT_MS)));
      id = (await Promise.race([answer, late])).targetInfo.targetId;
    } finally {
      clearTimeout(timer);
      await s.detach().catch(() => {});
    }
    targetIds.set(page, id);
  }
  return id;
}

/** @param {any} page */
const usable = (page) => !page.isClosed() && !crashed.has(page);

/** @param {any} browser @param {string} targetId */
async function findPage(browser, targetId) {
  for (const context of browser.contexts())
    for (const page of context.pages()) if (usable(page) && (await targetIdOf(page).catch(() => '')) === targetId) return page;
  return undefined;
}

/**
 * Whether the browser still has the tab. A tab closed by another client stays in this
 * connection's page list (with its cached target id) until the close event reaches it, so the
 * browser is asked.
 */
async function tabExists(browser, targetId) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    return (await cdp.send('Target.getTargets')).targetInfos.some((t) => t.targetId === targetId);
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** Opens a tab in the default context; `background` keeps every window's active tab as it is. */
async function openTab(browser, background) {
  const context = browser.contexts()[0];
  if (!background) return context.newPage();
  const cdp = await browser.newBrowserCDPSession();
  let created;
  try {
    created = await cdp.send('Target.createTarget', { url: 'about:blank', background: true });
  } finally {
    await cdp.detach().catch(() => {});
  }
  // Playwright learns of the tab through its own attachment; wait until it has.
  for (let i = 0; i < 600; i++) {
    const found = await findPage(browser, created.targetId);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the new tab did not appear');
}

/** @param {any} browser @param {{targetId?: string, background?: boolean}} bind */
async function bindPage(browser, bind) {
  const existing = bind.targetId && (await tabExists(browser, bind.targetId)) ? await findPage(browser, bind.targetId) : undefined;
  if (existing) return { page: existing, created: false };
  // The default executor uses any open tab before opening one (the engine found none active).
  if (!bind.background) {
    const open = browser.contexts()[0]?.pages().find(usable);
    if (open && !bind.targetId) return { page: open, created: false };
  }
  return { page: await openTab(browser, Boolean(bind.background)), created: true };
}

/**
 * A per-call sink for console output and `process.stdout/stderr` writes: each write goes to the
 * engine at once (a timed-out call still reports what it printed), bounded per call.
 */
function sink(callId, stream) {
  let size = 0;
  let truncated = false;
  const writable = new Writable({
    write(chunk, _enc, done) {
      const text = String(chunk).slice(0, Math.max(0, OUTPUT_CAP - size));
      size += text.length;
      for (let i = 0; i < text.length; i += OUTPUT_PIECE) parent.send({ type: 'output', callId, stream, text: text.slice(i, i + OUTPUT_PIECE) });
      if (!text && !truncated) parent.send({ type: 'output', callId, stream, text: '\n[output truncated]' });
      truncated ||= !text;
      done();
    },
  });
  return { stream: writable };
}

/** Node's globals a call sees besides the language's own (a fresh `vm` context has only those). */
const NODE_GLOBALS = [
  'Buffer',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'AbortController',
  'AbortSignal',
  'Blob',
  'Event',
  'EventTarget',
  'FormData',
  'Headers',
  'Request',
  'Response',
  'fetch',
  'atob',
  'btoa',
  'crypto',
  'performance',
  'structuredClone',
  'queueMicrotask',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'MessageChannel',
  'BroadcastChannel',
];

/** `process` as the call sees it: the real one, with stdout/stderr writing to the call's sinks. */
function processFor(out, err) {
  return new Proxy(process, {
    get(target, key) {
      if (key === 'stdout') return out.stream;
      if (key === 'stderr') return err.stream;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** @param {unknown} value */
function serializable(value) {
  if (value === undefined) return { success: true };
  try {
    const text = JSON.stringify(value);
    return text === undefined ? { success: true } : { success: true, result: JSON.parse(text) };
  } catch (err) {
    return { success: false, error: `the returned value is not JSON-serializable: ${err.message}` };
  }
}

/** @param {unknown} err */
function messageOf(err) {
  if (err && typeof err === 'object' && 'message' in err) return String(err.message) || String(err);
  return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
}

async function run(job) {
  const out = sink(job.callId, 'stdout');
  const err = sink(job.callId, 'stderr');
  let page;
  let tracing;
  try {
    const browser = await connect();
    const bound = await bindPage(browser, job.bind);
    page = bound.page;
    parent.send({ type: 'bound', callId: job.callId, tab: { created: bound.created, target_id: await targetIdOf(page) } });
    const context = page.context();
    if (job.trace) {
      await context.tracing.start({ screenshots: true, snapshots: true, sources: false, title: job.callId });
      tracing = context;
    }
    const globals = {
      page,
      context,
      browser,
      console: new Console({ stdout: out.stream, stderr: err.stream }),
      process: processFor(out, err),
      webmcp: webmcp.webmcpFor(job.callId),
    };
    for (const name of NODE_GLOBALS) if (name in globalThis) globals[name] = globalThis[name];
    const sandbox = vm.createContext(globals, { name: `call ${job.callId}` });
    const script = new vm.Script(`${job.js}\n__browserdeck_user_code__(page, context, browser);`, {
      filename: 'code.js',
      importModuleDynamically: (specifier) => import(specifier),
    });
    return serializable(await script.runInContext(sandbox));
  } catch (e) {
    return { success: false, error: messageOf(e) };
  } finally {
    if (tracing) {
      try {
        fs.mkdirSync(path.dirname(job.trace.path), { recursive: true });
        await tracing.tracing.stop({ path: job.trace.path });
      } catch (e) {
        err.stream.write(`[browserdeck] the trace was not saved: ${messageOf(e)}\n`);
      }
    }
  }
}

/** The answer, or — over the engine's limit — a failure saying so, with the start of any error. */
function sendAnswer(callId, answer) {
  parent.sendOr({ type: 'answer', callId, answer }, (err) => ({
    type: 'answer',
    callId,
    answer: {
      success: false,
      error: answer.success ? `the returned value is too large to send: ${err.message}` : `${String(answer.error).slice(0, ERROR_KEEP)} [truncated]`,
    },
  }));
}

const parent = parentChannel((m) => {
  if (m.type === 'webmcp-answer') {
    webmcp.answer(m);
  } else if (m.type === 'init') {
    init = m;
    parent.limit(m.limit);
    // Sandboxed, the marker is not on the command line (it would be on bwrap's too): show it as the title.
    if (m.title) process.title = m.title;
  } else if (m.type === 'run') {
    void run(m).then((answer) => sendAnswer(m.callId, answer));
  } else if (m.type === 'drop') {
    const current = connection;
    connection = undefined;
    void Promise.resolve(current)
      .then((b) => b?.close())
      .catch(() => {})
      .then(() => parent.send({ type: 'dropped' }));
  }
});
const webmcp = webmcpClient((m, done) => parent.send(m, done));
