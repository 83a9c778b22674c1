/**
 * The executor process of `/playwright/execute` (started by code-runner.ts, one per call, inside
 * the session's sandbox when bwrap works — see runner-launch.ts): receives
 * `{js, cdpUrl, playwright, forward?}` over IPC — the user's code already compiled to JavaScript
 * by the engine — starts the CDP forwarder when sandboxed (127.0.0.1:9222 → the session's CDP
 * socket), connects Playwright to the session's browser, runs the code as an async function
 * body with `page`, `context` and `browser` in a fresh browser context, and answers
 * `{success, result?, error?}`. Anything the code prints goes to this process's stdout/stderr,
 * which the parent captures. The parent ends this process on timeout; the context then goes
 * with the CDP connection.
 *
 * Plain JavaScript on purpose: it starts under bare `node` (no TypeScript loader to pay for
 * on every call) from sources, from a packaged build and inside the sandbox alike.
 */

/** @param {string} js @returns {(page: unknown, context: unknown, browser: unknown) => Promise<unknown>} */
function load(js) {
  return new Function(`${js}\nreturn __browserdeck_user_code__;`)();
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
  if (err instanceof Error) return err.message || String(err);
  return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
}

/** @param {{js: string, cdpUrl: string, playwright: string, forward?: {socket: string, port: number}, title?: string}} job */
async function run(job) {
  // Sandboxed, the marker is not on the command line (it would be on bwrap's too): show it as the title.
  if (job.title) process.title = job.title;
  let fn;
  try {
    fn = load(job.js);
  } catch (err) {
    return { success: false, error: `syntax error: ${messageOf(err)}` };
  }
  let context;
  try {
    if (job.forward) {
      const { listenForwarder } = await import('../sandbox/cdp-forwarder.mjs');
      const server = await listenForwarder(job.forward.socket, job.forward.port);
      server.unref();
    }
    const { chromium } = await import(job.playwright);
    const browser = await chromium.connectOverCDP(job.cdpUrl);
    context = await browser.newContext();
    const page = await context.newPage();
    // The parent's clock for timeout_sec starts now: startup is not the code's time.
    process.send({ started: true });
    return serializable(await fn(page, context, browser));
  } catch (err) {
    return { success: false, error: messageOf(err) };
  } finally {
    await context?.close().catch(() => {});
  }
}

process.once('message', (job) => {
  void run(job).then((answer) => process.send({ answer }, () => process.exit(0)));
});
