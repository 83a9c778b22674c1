/**
 * Driving a session's page. Kernel's `execute_playwright_code` and `take_screenshot` (its
 * names and arguments), and what an agent on a self-hosted engine uses to drive a page step by
 * step: `navigate`, `snapshot` (the page's accessibility tree with `[ref=eN]` marks, Playwright's
 * AI snapshot), and `click`/`type` by such a ref or by coordinates. Code runs through
 * `/playwright/execute` (jailed executors); coordinates through `/computer/*`. A caller's values
 * enter generated code only as JSON literals.
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { defineTool, jsonResult, ToolFailure, ToolInputError, type ToolContext, type ToolDef } from './tool.js';
import { seg } from './engine-call.js';
import { SESSION_ID } from './tools-browsers.js';
import type { ExecuteResult } from '../../../shared/wire/session-code.js';
import type { Session } from '../../../shared/wire/sessions.js';

/** Runs code with `page` in scope; a failed run throws its error text. */
async function execute(ctx: ToolContext, sessionId: string, code: string): Promise<unknown> {
  const r = await runCode(ctx, sessionId, code);
  if (!r.success) throw new ToolFailure('execution_failed', r.error ?? 'the code failed');
  return r.result;
}

function runCode({ api, signal }: ToolContext, sessionId: string, code: string): Promise<ExecuteResult> {
  return api.json<ExecuteResult>('POST', `/browsers/${seg(sessionId)}/playwright/execute`, { json: { code }, signal });
}

const lit = (v: unknown): string => JSON.stringify(v);
const REF = z
  .string()
  .regex(/^[a-z]*\d+$/)
  .describe('An element ref from the latest snapshot, e.g. "e12".');

const executePlaywrightCode = defineTool({
  name: 'execute_playwright_code',
  description:
    'Run Playwright code (TypeScript) against a browser session with a `page` in scope; `return` a value to get it back. Without session_id a new browser is created for the run and deleted after it. Example: `await page.goto("https://example.com"); return await page.title();` Tip: `return await page.ariaSnapshot({ mode: "ai" })` describes the page.',
  kind: 'write',
  input: {
    code: z.string().min(1).describe('The code: async/await, `page` (Playwright Page) in scope.'),
    session_id: z.string().optional().describe('Run in this existing session (left running). Without it, a new session is made and deleted after the run.'),
  },
  async run({ code, session_id }, ctx) {
    const own = session_id ? undefined : await ctx.api.json<Session>('POST', '/browsers', { json: { stealth: true }, signal: ctx.signal });
    try {
      const r = await runCode(ctx, session_id ?? own!.session_id, code);
      const out = { success: r.success, result: r.result, error: r.error, stdout: r.stdout, stderr: r.stderr, ...(own ? { session_id: own.session_id } : {}) };
      return { ...jsonResult(out), ...(r.success ? {} : { isError: true }) };
    } finally {
      if (own) await ctx.api.raw('DELETE', `/browsers/${seg(own.session_id)}`);
    }
  },
});

const takeScreenshot = defineTool({
  name: 'take_screenshot',
  description: "A PNG of the session's screen, or of one region of it (x, y, width and height together, in pixels).",
  kind: 'read',
  input: {
    session_id: SESSION_ID,
    x: z.number().int().optional().describe('Left edge of the region; with y, width and height.'),
    y: z.number().int().optional().describe('Top edge of the region; with x, width and height.'),
    width: z.number().int().optional().describe('Width of the region; with x, y and height.'),
    height: z.number().int().optional().describe('Height of the region; with x, y and width.'),
  },
  async run({ session_id, x, y, width, height }, { api, signal }): Promise<CallToolResult> {
    const given = [x, y, width, height].filter((v) => v !== undefined).length;
    if (given !== 0 && given !== 4) throw new ToolInputError('a region needs all four of x, y, width and height');
    const body = given ? { region: { x, y, width, height } } : {};
    const png = await api.bytes('POST', `/browsers/${seg(session_id)}/computer/screenshot`, { json: body, signal });
    const mimeType = String(png.headers['content-type'] ?? 'image/png').split(';')[0];
    return { content: [{ type: 'image', data: png.body.toString('base64'), mimeType }] };
  },
});

const navigate = defineTool({
  name: 'navigate',
  description: "Load a URL in the session's current tab; answers the final URL and the page title.",
  kind: 'write',
  input: { session_id: SESSION_ID, url: z.string().min(1).describe('The address to load.') },
  async run({ session_id, url }, ctx) {
    return jsonResult(await execute(ctx, session_id, `await page.goto(${lit(url)}); return { url: page.url(), title: await page.title() };`));
  },
});

const snapshot = defineTool({
  name: 'snapshot',
  description:
    "The current tab's accessibility tree (roles, names, values) with a ref for each element ([ref=e5]); click and type take those refs. Take a new one after the page changes.",
  kind: 'read',
  input: { session_id: SESSION_ID },
  async run({ session_id }, ctx) {
    const r = (await execute(ctx, session_id, 'return { url: page.url(), title: await page.title(), snapshot: await page.ariaSnapshot({ mode: "ai" }) };')) as {
      url: string;
      title: string;
      snapshot: string;
    };
    return { content: [{ type: 'text', text: `URL: ${r.url}\nTitle: ${r.title}\n\n${r.snapshot}` }] };
  },
});

const click = defineTool({
  name: 'click',
  description: 'Click an element by its snapshot ref, or the screen at x/y (pixels, as in take_screenshot).',
  kind: 'write',
  input: {
    session_id: SESSION_ID,
    ref: REF.optional(),
    x: z.number().int().optional().describe('Screen x; with y, instead of ref.'),
    y: z.number().int().optional().describe('Screen y; with x, instead of ref.'),
    double: z.boolean().optional().describe('A double click.'),
  },
  async run({ session_id, ref, x, y, double }, ctx) {
    if (ref !== undefined) {
      if (x !== undefined || y !== undefined) throw new ToolInputError('give ref or x/y, not both');
      await execute(ctx, session_id, `await page.locator(${lit(`aria-ref=${ref}`)}).${double ? 'dblclick' : 'click'}(); return null;`);
      return jsonResult({ clicked: ref });
    }
    if (x === undefined || y === undefined) throw new ToolInputError('give ref, or both x and y');
    await ctx.api.json('POST', `/browsers/${seg(session_id)}/computer/click_mouse`, { json: { x, y, num_clicks: double ? 2 : 1 }, signal: ctx.signal });
    return jsonResult({ clicked: { x, y } });
  },
});

const type = defineTool({
  name: 'type',
  description:
    'Type text: into the element with this snapshot ref (its value is replaced), or, without ref, as keystrokes into whatever has focus. submit presses Enter afterwards.',
  kind: 'write',
  input: {
    session_id: SESSION_ID,
    text: z.string().describe('The text.'),
    ref: REF.optional(),
    submit: z.boolean().optional().describe('Press Enter after typing.'),
  },
  async run({ session_id, text, ref, submit }, ctx) {
    if (ref !== undefined) {
      const target = `page.locator(${lit(`aria-ref=${ref}`)})`;
      await execute(ctx, session_id, `await ${target}.fill(${lit(text)});${submit ? ` await ${target}.press("Enter");` : ''} return null;`);
    } else {
      const calls: Array<[string, unknown]> = [['type', { text }]];
      if (submit) calls.push(['press_key', { keys: ['Return'] }]);
      for (const [op, body] of calls) await ctx.api.json('POST', `/browsers/${seg(session_id)}/computer/${op}`, { json: body, signal: ctx.signal });
    }
    return jsonResult({ typed: text.length, ...(ref ? { into: ref } : {}), submitted: Boolean(submit) });
  },
});

export const pageTools: ToolDef[] = [executePlaywrightCode, takeScreenshot, navigate, snapshot, click, type];
