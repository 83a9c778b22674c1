/**
 * The executor process of `/playwright/execute` (forked by code-runner.ts, one per call):
 * receives `{cdpUrl, code}` over IPC, strips TypeScript with esbuild, connects Playwright to
 * the session's browser, runs the code as an async function body with `page`, `context` and
 * `browser` in a fresh browser context, and answers `{success, result?, error?}`. Anything
 * the code prints goes to this process's stdout/stderr, which the parent captures. The
 * parent ends this process on timeout; the context then goes with the CDP connection.
 *
 * Plain JavaScript on purpose: it starts under bare `node` (no TypeScript loader to pay for
 * on every call) from sources and from a packaged build alike.
 */
import { transform } from 'esbuild';
import { chromium } from 'playwright-core';

/** @param {string} code @returns {Promise<(page: unknown, context: unknown, browser: unknown) => Promise<unknown>>} */
async function compile(code) {
  // Wrapped so `return` and `await` are legal at the top of the user's code.
  const wrapped = `async function __browserdeck_user_code__(page, context, browser) {\n${code}\n}`;
  const out = await transform(wrapped, { loader: 'ts', target: 'node20', format: 'esm', sourcefile: 'code.ts' });
  return new Function(`${out.code}\nreturn __browserdeck_user_code__;`)();
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

/** @param {{cdpUrl: string, code: string}} job */
async function run(job) {
  let fn;
  try {
    fn = await compile(job.code);
  } catch (err) {
    const errors = err?.errors;
    if (errors?.length) return { success: false, error: `syntax error: ${errors.map((e) => (e.location ? `${e.text} (line ${e.location.line - 1}, column ${e.location.column})` : e.text)).join('; ')}` };
    return { success: false, error: `syntax error: ${messageOf(err)}` };
  }
  let context;
  try {
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
