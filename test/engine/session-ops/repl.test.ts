/**
 * The browser REPL (spec §9), as raw HTTP written from the spec (SDK 0.84 predates it), against
 * real Chromium: bindings persist across calls (and may be declared again), top-level await and
 * `import()`, ordered content from `repl.write`, console and `repl.emitImage`, exceptions and
 * syntax errors that keep state, static imports and top-level return rejected, `reset`, a
 * timeout and an unhandled exception that end the REPL (`repl_terminated`, a new `repl_id`),
 * the browser helpers and playwright-core, a browser crash restart the REPL follows, jail
 * escapes that fail, and bad input.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestWebServer, processesWith, type TestWebServer } from '../../helpers/chromium-web.js';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { REPL_MARKER } from '../../../src/engine/runtime/code-runner/session-repl.js';
import { handleOf } from './isolation-helpers.js';

let te: TestEngine;
let web: TestWebServer;
let id: string;
let other: string;
const sandboxed = Boolean(await usableBwrap());

interface ReplResult {
  repl_id: string;
  success: boolean;
  content?: ({ type: 'text'; channel: string; text: string } | { type: 'image'; mime_type: string; data_b64: string })[];
  content_truncated?: boolean;
  duration_ms?: number;
  error?: string;
  stack?: string;
  repl_terminated?: boolean;
}

beforeAll(async () => {
  web = await startTestWebServer();
  te = await startTestEngine();
  id = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
  other = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
  await te.client.browsers.fs.writeFile(other, 'other secret', { path: '/other-secret.txt' });
});

afterAll(async () => {
  await te?.stop();
  await web?.close();
});

async function repl(body: Record<string, unknown>, session = id): Promise<ReplResult> {
  const res = await te.api(`/browsers/${session}/repl`, { method: 'POST', json: body });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as ReplResult;
}
const texts = (r: ReplResult) => (r.content ?? []).map((c) => (c.type === 'text' ? `${c.channel}:${c.text}` : `image:${c.mime_type}`));

describe.runIf(sandboxed)('browser REPL', { timeout: 300_000 }, () => {
  it('keeps bindings across calls, with top-level await and dynamic import', async () => {
    const a = await repl({ code: `let count = 1; const base = await Promise.resolve(40); function add(n) { return base + n; } class Box {}` });
    expect(a).toMatchObject({ success: true, content: [] });
    expect(a.repl_id).toMatch(/^[a-z][0-9a-z]{23}$/);
    const b = await repl({
      code: `count++; const { join } = await import('node:path'); repl.write(String(add(count)) + ' ' + join('a', 'b') + ' ' + typeof Box);`,
    });
    expect(b).toMatchObject({ success: true, repl_id: a.repl_id });
    expect(texts(b)).toEqual(['write:42 a/b function']);
    // Declared again in a later cell, as in a console.
    expect(texts(await repl({ code: `let count = 10; repl.write(String(count));` }))).toEqual(['write:10']);
  });

  it('returns ordered content from repl.write, console and repl.emitImage', async () => {
    const r = await repl({
      code: `repl.write('one'); console.log('two', 2); console.error('three'); repl.emitImage(Buffer.from('png-bytes')); repl.write('four'); 'ignored value'`,
    });
    expect(texts(r)).toEqual(['write:one', 'stdout:two 2\n', 'stderr:three\n', 'image:image/png', 'write:four']);
    expect(r.content![3]).toMatchObject({ data_b64: Buffer.from('png-bytes').toString('base64') });
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('reports exceptions and syntax errors and keeps state; rejects static import and top-level return', async () => {
    await repl({ code: 'var kept = "yes";' });
    const thrown = await repl({ code: `throw new TypeError('boom')` });
    expect(thrown).toMatchObject({ success: false, error: 'TypeError: boom' });
    expect(thrown.stack).toMatch(/TypeError: boom/);
    expect(thrown.repl_terminated).toBeUndefined();
    for (const code of ['let = ;', `import fs from 'node:fs';`, 'return 1;', 'const x: number = 1;']) {
      const r = await repl({ code });
      expect(r.success, code).toBe(false);
      expect(r.error, code).toMatch(/SyntaxError/);
    }
    expect(texts(await repl({ code: 'repl.write(kept)' }))).toEqual(['write:yes']);
  });

  it('reset starts a fresh REPL; a timeout or an unhandled exception terminates it', async () => {
    const before = await repl({ code: 'var survivor = 1;' });
    const reset = await repl({ code: '', reset: true });
    expect(reset.success).toBe(true);
    expect(reset.repl_id).not.toBe(before.repl_id);
    expect(texts(await repl({ code: 'repl.write(typeof survivor)' }))).toEqual(['write:undefined']);

    await repl({ code: 'var survivor = 2;' });
    const timedOut = await repl({ code: `repl.write('before'); await new Promise(() => {});`, timeout_sec: 1 });
    expect(timedOut).toMatchObject({ success: false, repl_terminated: true, repl_id: reset.repl_id });
    expect(timedOut.error).toMatch(/timed out after 1 s/);
    expect(texts(timedOut)).toEqual(['write:before']);
    const next = await repl({ code: 'repl.write(typeof survivor)' });
    expect(next.repl_id).not.toBe(reset.repl_id);
    expect(texts(next)).toEqual(['write:undefined']);
    expect(processesWith(`${REPL_MARKER}=${id}`)).toHaveLength(1);

    const crashed = await repl({ code: `setTimeout(() => { throw new Error('later') }, 0); await new Promise((r) => setTimeout(r, 100000));` });
    expect(crashed).toMatchObject({ success: false, repl_terminated: true, repl_id: next.repl_id });
    expect((await repl({ code: '1' })).repl_id).not.toBe(next.repl_id);
  });

  it('drives the browser with the helpers, raw CDP and playwright-core', async () => {
    const r = await repl({
      code: `
const nav = await gotoUrl(${JSON.stringify(`${web.url}/title/Helpers`)});
repl.write(nav.url + ' ' + await page.title());
await page.setContent('<input id="q"><button id="b" onclick="document.title = document.querySelector(\\'#q\\').value">go</button>');
await fillInput('#q', 'typed');
await click('#b');
repl.write(await page.title());
repl.write((await accessibilitySnapshot()).includes('button "go"') ? 'snapshot ok' : 'snapshot missing');
const { result } = await cdp('Runtime.evaluate', { expression: '6 * 7', returnByValue: true });
repl.write(String(result.value));
const { product } = await cdp.browser('Browser.getVersion');
repl.write(product.split('/')[0]);
const pw = await import('playwright-core');
repl.write(typeof pw.chromium.connectOverCDP);
repl.write(Object.keys(playwright).sort().join(','));
const tab = await newTab(${JSON.stringify(`${web.url}/title/Second`)});
const tabs = await listTabs();
repl.write(String(tabs.find((t) => t.target_id === tab).current) + ' ' + await page.title());
await closeTab(tab);
repl.write(String((await listTabs()).some((t) => t.target_id === tab)));`,
    });
    // The `playwright` global has what `import('playwright-core')` gives, though the runner loads it with require.
    const PLAYWRIGHT_EXPORTS = Object.keys(await import('playwright-core'))
      .sort()
      .join(',');
    expect(r.error).toBeUndefined();
    expect(texts(r)).toEqual([
      `write:${web.url}/title/Helpers Helpers`,
      'write:typed',
      'write:snapshot ok',
      'write:42',
      'write:Chrome',
      'write:function',
      `write:${PLAYWRIGHT_EXPORTS}`,
      'write:true Second',
      'write:false',
    ]);
  });

  it('cannot read the engine data dir, another session, /etc/shadow or reach another session', async () => {
    const paths = {
      adminKey: path.join(te.dataDir, 'admin-api-key'),
      otherFile: path.join(handleOf(te, other).dirs.root, 'other-secret.txt'),
      shadow: '/etc/shadow',
    };
    // The other session's DevTools: through the engine (its browser has no host port when jailed).
    const otherCdp = `${te.url}/browsers/${other}/cdp/json/version`;
    expect([200, 401]).toContain((await fetch(otherCdp)).status);
    const r = await repl({
      code: `
const fs = await import('node:fs');
for (const [k, p] of Object.entries(${JSON.stringify(paths)})) { try { fs.readFileSync(p); repl.write(k + ' read'); } catch (e) { repl.write(k + ' ' + e.code); } }
try { await fetch(${JSON.stringify(otherCdp)}); repl.write('other cdp reached'); } catch (e) { repl.write('other cdp ' + (e.cause?.code ?? e.message)); }`,
    });
    const out = texts(r);
    expect(out[0]).toBe('write:adminKey ENOENT');
    expect(out[1]).toBe('write:otherFile ENOENT');
    expect(out[2]).toMatch(/^write:shadow (ENOENT|EACCES)$/);
    expect(out[3]).toBe('write:other cdp ECONNREFUSED');
  });

  it('rejects bad input', async () => {
    const status = async (body: unknown, session = id) => (await te.api(`/browsers/${session}/repl`, { method: 'POST', json: body })).status;
    expect(await status({})).toBe(400);
    expect(await status({ code: '' })).toBe(400);
    expect(await status({ code: '1', timeout_sec: 0 })).toBe(400);
    expect(await status({ code: '1', timeout_sec: 301 })).toBe(400);
    expect(await status({ code: 1 })).toBe(400);
    expect(await status({ code: '1' }, 'no-such-session')).toBe(404);
  });

  it("the engine bounds a cell's content itself, whatever the code sends on the REPL's channel", async () => {
    // The code sends content messages of its own for its cell, as frames on the REPL's channel
    // (the socket and the cell's id taken from its own repl.write's frame).
    const forge = `const net = process.getBuiltinModule('net'); const write = net.Socket.prototype.write; let id, sock;
net.Socket.prototype.write = function (chunk, ...rest) { if (!sock && Buffer.isBuffer(chunk)) { id = JSON.parse(chunk.subarray(4).toString()).callId; sock = this; } return write.call(this, chunk, ...rest); };
repl.write('x');
net.Socket.prototype.write = write;
const frame = (m) => { const b = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
const post = (m) => new Promise((r) => sock.write(frame(m), r));`;
    const r = await repl({
      code: `{ ${forge}
for (let i = 0; i < 3; i++) await post({ type: 'content', callId: id, item: { type: 'text', channel: 'write', text: 'y'.repeat(512 * 1024) } }); }`,
    });
    expect(r.success).toBe(true);
    expect(r.content_truncated).toBe(true);
    expect(texts(r).map((t) => t.length)).toEqual(['write:x'.length, 'write:'.length + 512 * 1024]);
    // A message of no known shape ends the REPL: the cell says so, the next one gets a new REPL.
    const bad = await repl({
      code: `{ ${forge}\nawait post({ type: 'content', callId: id, item: { type: 'text', channel: 'evil', text: 'z' } }); await new Promise(() => {}); }`,
    });
    expect(bad).toMatchObject({ success: false, repl_terminated: true, error: expect.stringMatching(/^the REPL sent an invalid message and was stopped/) });
    expect(await repl({ code: `repl.write('fresh')` })).toMatchObject({ success: true, content: [{ text: 'fresh' }] });
  });

  it('keeps its state across a browser crash restart and drives the new browser', async () => {
    const s = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
    const first = await repl({ code: `var kept = 'kept'; repl.write(typeof browser.contexts)` }, s);
    expect(texts(first)).toEqual(['write:function']);
    const rt = (te.engine.services.sessions as unknown as { get(id: string): { restarts: number } }).get(s);
    const cdp = await chromium.connectOverCDP((await te.client.browsers.retrieve(s)).cdp_ws_url);
    await (await cdp.newBrowserCDPSession()).send('Browser.crash').catch(() => {});
    await cdp.close().catch(() => {});
    await expect.poll(() => rt.restarts, { timeout: 60_000 }).toBeGreaterThan(0);
    // The browser has a new address: the REPL's next cell connects to it, its bindings intact.
    const after = await repl({ code: `await gotoUrl(${JSON.stringify(`${web.url}/title/Reborn`)}); repl.write(kept + ' ' + (await page.title()));` }, s);
    expect(after.error).toBeUndefined();
    expect(after).toMatchObject({ success: true, repl_id: first.repl_id });
    expect(texts(after)).toEqual(['write:kept Reborn']);
    await te.client.browsers.deleteByID(s);
  });

  it('at most 16 cells wait behind a running one: the next is 429; the session end answers them', async () => {
    const s = (await te.client.browsers.create({ headless: true, timeout_seconds: 300 })).session_id;
    const post = (code: string) => te.api(`/browsers/${s}/repl`, { method: 'POST', json: { code, timeout_sec: 300 } });
    // The running cell announces itself through a file the test can read.
    const stuck = post(
      `const fs = await import('node:fs'); fs.mkdirSync('/tmp', { recursive: true }); fs.writeFileSync('/tmp/stuck', 'running'); await new Promise(() => {});`,
    );
    await expect.poll(async () => (await te.api(`/browsers/${s}/fs/read_file?path=/tmp/stuck`)).status, { timeout: 60_000 }).toBe(200);
    // 20 more at once: whatever order they arrive in, 16 wait and 4 are refused without waiting.
    let refused = 0;
    const more = Array.from({ length: 20 }, (_, i) =>
      post(String(i)).then(async (r) => {
        if (r.status === 429) {
          expect(await r.json()).toMatchObject({ code: 'repl_busy' });
          refused++;
        }
        return r.status;
      }),
    );
    await expect.poll(() => refused, { timeout: 60_000 }).toBe(4);
    await te.client.browsers.deleteByID(s);
    expect((await stuck).status).toBe(200);
    const statuses = await Promise.all(more);
    expect(statuses.filter((x) => x === 429)).toHaveLength(4);
    // The waiting ones are answered when the session ends: the REPL is gone (404) or ended (200, success false).
    for (const x of statuses.filter((x) => x !== 429)) expect([200, 404]).toContain(x);
  });

  // The last test: it ends the file's second session (no REPL ran in it so far) instead of launching one more.
  it('ends with its session', async () => {
    const s = other;
    expect(processesWith(`${REPL_MARKER}=${s}`)).toEqual([]);
    await repl({ code: '1' }, s);
    expect(processesWith(`${REPL_MARKER}=${s}`)).toHaveLength(1);
    await te.client.browsers.deleteByID(s);
    await expect.poll(() => processesWith(`${REPL_MARKER}=${s}`), { timeout: 60_000 }).toEqual([]);
  });
});
