/**
 * Playwright executors (spec §7), as raw HTTP written from the spec (SDK 0.84 predates them),
 * against real Chromium: `default` binds `page` to the user's current tab (one a CDP client
 * opened), a named executor keeps its own background tab across calls while each call gets
 * fresh globals, two executors run at once while calls on one run in order (at most 16 waiting), a 9th named
 * executor is 409 with the list, delete closes the tab (default: restarts), a timeout or a crash
 * leaves other executors alone, a trace is recorded into the session's files, code on a named
 * executor is jailed like the default's, and executors end with their session.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../../helpers/engine.js';
import { startTestWebServer, processesWith, type TestWebServer } from '../../helpers/chromium-web.js';
import { RUNNER_MARKER } from '../../../src/engine/runtime/code-runner/code-runner.js';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';

let te: TestEngine;
let web: TestWebServer;
let id: string;
let browser: Browser;
const sandboxed = Boolean(await usableBwrap());
/** Polls wait for an outcome, not for a time: the bound only ends a hung test. */
const POLL = { timeout: 120_000 };

interface Result {
  success: boolean;
  result?: unknown;
  error?: string;
  stdout?: string;
  tab?: { created: boolean; target_id: string };
  trace_path?: string;
}
interface ExecutorInfo {
  name: string;
  busy: boolean;
  queued: number;
  target_id?: string;
  url?: string;
  created_at: string;
  last_used_at: string;
}

beforeAll(async () => {
  web = await startTestWebServer();
  // 18 calls at once on one session (16 waiting on one executor): above the default bound of
  // concurrent exec/execute calls per session (test/engine/limits/exec-limits.test.ts).
  te = await startTestEngine({ execLimits: { perSession: 32 } });
  const s = await te.client.browsers.create({ headless: true, timeout_seconds: 300 });
  id = s.session_id;
  browser = await chromium.connectOverCDP(s.cdp_ws_url);
});

afterAll(async () => {
  await browser?.close().catch(() => {});
  await te?.stop();
  await web?.close();
});

async function execute(body: Record<string, unknown>, session = id): Promise<Result> {
  const res = await te.api(`/browsers/${session}/playwright/execute`, { method: 'POST', json: { timeout_sec: 120, ...body } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Result;
}
const list = async (): Promise<ExecutorInfo[]> =>
  ((await (await te.api(`/browsers/${id}/playwright/executors`)).json()) as { executors: ExecutorInfo[] }).executors;
const del = (name: string, query = '') => te.api(`/browsers/${id}/playwright/executors/${name}${query}`, { method: 'DELETE' });
const targetIdOf = async (p: Page) => {
  const s = await p.context().newCDPSession(p);
  const { targetInfo } = (await s.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
  await s.detach();
  return targetInfo.targetId;
};
/** Code that appends `mark` to a file in the session, then waits until `waitFor` is in it. */
const marking = (file: string, mark: string, waitFor?: string) => `
const fs = await import('node:fs');
fs.mkdirSync('/tmp', { recursive: true });
fs.appendFileSync(${JSON.stringify(file)}, ${JSON.stringify(mark)} + '\\n');
${waitFor ? `while (!fs.readFileSync(${JSON.stringify(file)}, 'utf8').split('\\n').includes(${JSON.stringify(waitFor)})) await new Promise((r) => setTimeout(r, 20));` : ''}
return fs.readFileSync(${JSON.stringify(file)}, 'utf8').trim().split('\\n');`;
/** A value kept on the executor's process (globals are fresh per call, `process` is the real one). */
const PROCESS_TOKEN = `return (process.browserdeckToken ??= Math.random().toString(36).slice(2));`;

// Every executor's first call starts a Node process and a Playwright connection: ~1.7 s of CPU
// each, most of this file's. So an executor is started where its start (or its own process) is
// what a test watches; elsewhere a test runs on one an earlier test left running (and starts it
// when run alone), and the last test ends the file's own session rather than starting another.
describe('playwright executors', { timeout: 300_000 }, () => {
  it('default binds page to the tab the user is on, in the default context', async () => {
    const mine = await browser.contexts()[0].newPage();
    await mine.goto(`${web.url}/title/Current`);
    const r = await execute({ code: 'return { url: page.url(), sameContext: context === browser.contexts()[0] };' });
    expect(r).toMatchObject({ success: true, result: { url: `${web.url}/title/Current`, sameContext: true } });
    expect(r.tab).toEqual({ created: false, target_id: await targetIdOf(mine) });
    // A tab a CDP client opens in the foreground becomes the current one.
    const cdp = await browser.newBrowserCDPSession();
    const { targetId } = (await cdp.send('Target.createTarget', { url: `${web.url}/title/Opened` })) as { targetId: string };
    await expect.poll(async () => (await execute({ code: 'return page.url()' })).result, POLL).toBe(`${web.url}/title/Opened`);
    expect((await execute({ code: 'return 1', executor: 'default' })).tab).toEqual({ created: false, target_id: targetId });
    await cdp.send('Target.closeTarget', { targetId });
    await cdp.detach();
  });

  it('a named executor keeps its background tab across calls, with fresh globals each call', async () => {
    const before = (await execute({ code: 'return page.url()' })).result;
    const first = await execute({
      executor: 'keeper',
      code: `globalThis.leftover = 1; await page.goto(${JSON.stringify(`${web.url}/title/Keeper`)}); return typeof leftover;`,
    });
    expect(first).toMatchObject({ success: true, result: 'number', tab: { created: true } });
    const second = await execute({ executor: 'keeper', code: 'return { url: page.url(), leftover: typeof leftover };' });
    expect(second).toMatchObject({ success: true, result: { url: `${web.url}/title/Keeper`, leftover: 'undefined' } });
    expect(second.tab).toEqual({ created: false, target_id: first.tab!.target_id });
    // Opened in the background: the user's tab is still the default's page.
    expect((await execute({ code: 'return page.url()' })).result).toBe(before);
    const keeper = (await list()).find((e) => e.name === 'keeper');
    expect(keeper).toMatchObject({ busy: false, target_id: first.tab!.target_id, url: `${web.url}/title/Keeper` });
    // Closed by someone else, its next call opens a new one.
    const page = browser
      .contexts()[0]
      .pages()
      .find((p) => p.url() === `${web.url}/title/Keeper`)!;
    await page.close();
    const third = await execute({ executor: 'keeper', code: 'return page.url()' });
    expect(third).toMatchObject({ success: true, result: 'about:blank', tab: { created: true } });
    expect(third.tab!.target_id).not.toBe(first.tab!.target_id);
  });

  it('different executors run at the same time', async () => {
    // Each waits for the other's mark: only concurrent calls can both finish.
    const file = '/tmp/concurrent.log';
    const [a, b] = await Promise.all([
      execute({ executor: 'left', code: marking(file, 'left', 'right') }),
      execute({ executor: 'right', code: marking(file, 'right', 'left') }),
    ]);
    expect(a, a.error).toMatchObject({ success: true });
    expect(b, b.error).toMatchObject({ success: true });
  });

  it('calls on one executor run one after the other, in order', async () => {
    const file = '/tmp/serial.log';
    const first = execute({
      executor: 'serial',
      code: marking(file, 'first-start', 'release').replace(/return .*$/, "fs.appendFileSync('/tmp/serial.log', 'first-end\\n');"),
    });
    const read = async () => (await te.api(`/browsers/${id}/fs/read_file?path=${encodeURIComponent(file)}`)).text();
    await expect.poll(read, POLL).toBe('first-start\n');
    const second = execute({ executor: 'serial', code: marking(file, 'second') });
    // The second call waits behind the first (the list counts it), and has not started.
    await expect.poll(async () => (await list()).find((e) => e.name === 'serial')?.queued, POLL).toBe(1);
    await execute({ executor: 'releaser', code: `(await import('node:fs')).appendFileSync('/tmp/serial.log', 'release\\n');` });
    expect(await first).toMatchObject({ success: true });
    expect((await second).result).toEqual(['first-start', 'release', 'first-end', 'second']);
  });

  it('at most 16 calls wait on one executor: the next is 429, and a delete answers those waiting', async () => {
    const stuck = execute({ executor: 'crowded', code: 'await new Promise(() => {})' });
    await expect.poll(async () => (await list()).find((e) => e.name === 'crowded')?.busy, POLL).toBe(true);
    const waiting = Array.from({ length: 16 }, (_, i) => execute({ executor: 'crowded', code: `return ${i}` }));
    await expect.poll(async () => (await list()).find((e) => e.name === 'crowded')?.queued, POLL).toBe(16);
    const res = await te.api(`/browsers/${id}/playwright/execute`, { method: 'POST', json: { executor: 'crowded', code: 'return 17' } });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ code: 'executor_busy' });
    // Other executors are not affected.
    expect(await execute({ code: 'return 1' })).toMatchObject({ success: true, result: 1 });
    expect((await del('crowded')).status).toBe(204);
    for (const r of [await stuck, ...(await Promise.all(waiting))]) expect(r).toMatchObject({ success: false, error: 'the executor was deleted' });
  });

  it("the engine bounds a call's output itself, whatever the code sends on the executor's channel", async () => {
    // The code sends output messages of its own for its call, as frames on the executor's channel
    // (the socket and the call's id taken from its own console.log's frame).
    const forge = `const net = process.getBuiltinModule('net'); const write = net.Socket.prototype.write; let id, sock;
net.Socket.prototype.write = function (chunk, ...rest) { if (!sock && Buffer.isBuffer(chunk)) { id = JSON.parse(chunk.subarray(4).toString()).callId; sock = this; } return write.call(this, chunk, ...rest); };
console.log('x');
net.Socket.prototype.write = write;
const frame = (m) => { const b = Buffer.from(JSON.stringify(m)); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
const post = (m) => new Promise((r) => sock.write(frame(m), r));`;
    const r = await execute({
      executor: 'flooder',
      code: `${forge}
for (let i = 0; i < 3; i++) await post({ type: 'output', callId: id, stream: 'stdout', text: 'y'.repeat(1024 * 1024) });
return 'done';`,
    });
    expect(r).toMatchObject({ success: true, result: 'done' });
    expect(r.stdout!.length).toBe(1024 * 1024 + '\n[output truncated]'.length);
    expect(r.stdout!.startsWith('x\ny')).toBe(true);
    expect(r.stdout!.endsWith('y\n[output truncated]')).toBe(true);
    // A message of no known shape ends the executor's process: the call says so, the next one gets a new process.
    const bad = await execute({
      executor: 'flooder',
      code: `${forge}\nawait post({ type: 'output', callId: id, stream: 'callId', text: 'z' });\nawait new Promise(() => {});`,
    });
    expect(bad).toMatchObject({ success: false, error: expect.stringMatching(/^the code runner sent an invalid message and was stopped/) });
    expect(await execute({ executor: 'flooder', code: 'return 1' })).toMatchObject({ success: true, result: 1 });
  });

  it('delete closes the tab (unless close_tab=false) and fails a running call; default restarts', async () => {
    const tabs = async () => Promise.all(browser.contexts()[0].pages().map(targetIdOf));
    const a = await execute({ executor: 'doomed', code: 'return 1' });
    expect(await tabs()).toContain(a.tab!.target_id);
    const running = execute({ executor: 'doomed', code: 'await new Promise(() => {})' });
    await expect.poll(async () => (await list()).find((e) => e.name === 'doomed')?.busy, POLL).toBe(true);
    expect((await del('doomed')).status).toBe(204);
    expect(await running).toMatchObject({ success: false, error: 'the executor was deleted' });
    await expect.poll(tabs, POLL).not.toContain(a.tab!.target_id);
    // An executor an earlier test started (`right`): started here when this test runs alone.
    const b = await execute({ executor: 'right', code: 'return 1' });
    expect((await del('right', '?close_tab=false')).status).toBe(204);
    expect(await tabs()).toContain(b.tab!.target_id);
    expect((await del('no-such-executor')).status).toBe(404);

    const token = (await execute({ code: PROCESS_TOKEN })).result;
    const stuck = execute({ code: 'await new Promise(() => {})' });
    await expect.poll(async () => (await list())[0].busy, POLL).toBe(true);
    expect((await del('default')).status).toBe(204);
    expect(await stuck).toMatchObject({ success: false, error: 'the executor was restarted' });
    expect((await list())[0].name).toBe('default');
    const after = await execute({ code: PROCESS_TOKEN });
    expect(after).toMatchObject({ success: true });
    expect(after.result).not.toBe(token);
  });

  it('a timeout keeps the process, a blocked loop or a crash replaces it, and other executors go on', async () => {
    // The bystander is `keeper`, already running since its test (started here when run alone).
    const other = (await execute({ executor: 'keeper', code: PROCESS_TOKEN })).result;
    const token = (await execute({ executor: 'victim', code: PROCESS_TOKEN })).result;
    const timedOut = await execute({ executor: 'victim', code: 'await new Promise(() => {})', timeout_sec: 1 });
    expect(timedOut.error).toMatch(/timed out after 1 s; its browser connection was dropped/);
    expect(await execute({ executor: 'victim', code: PROCESS_TOKEN })).toMatchObject({ success: true, result: token });

    const blocked = await execute({ executor: 'victim', code: 'for (;;) {}', timeout_sec: 1 });
    expect(blocked.error).toMatch(/timed out/);
    const fresh = await execute({ executor: 'victim', code: PROCESS_TOKEN });
    expect(fresh).toMatchObject({ success: true });
    expect(fresh.result).not.toBe(token);

    const crashed = await execute({ executor: 'victim', code: 'process.exit(3)' });
    expect(crashed).toMatchObject({ success: false });
    expect(crashed.error).toMatch(/exited unexpectedly \(exit code 3\)/);
    const again = await execute({ executor: 'victim', code: PROCESS_TOKEN });
    expect(again.result).not.toBe(fresh.result);
    expect(await execute({ executor: 'keeper', code: PROCESS_TOKEN })).toMatchObject({ success: true, result: other });
  });

  it('records a Playwright trace into the session files on request', async () => {
    // On `left`, already running (a trace is per call, not per process).
    const r = await execute({
      executor: 'left',
      trace: true,
      code: `await page.goto(${JSON.stringify(`${web.url}/title/Traced`)}); return await page.title();`,
    });
    expect(r).toMatchObject({ success: true, result: 'Traced' });
    expect(r.trace_path).toMatch(/^\/tmp\/traces\/[0-9a-f-]+\.zip$/);
    const file = await te.api(`/browsers/${id}/fs/read_file?path=${encodeURIComponent(r.trace_path!)}`);
    expect(file.status).toBe(200);
    const zip = Buffer.from(await file.arrayBuffer());
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    expect(zip.includes(Buffer.from('trace.trace'))).toBe(true);
    expect((await execute({ executor: 'left', code: 'return 1' })).trace_path).toBeUndefined();
  });

  it('records a trace without bwrap too (Node permission model)', async () => {
    process.env.BROWSERDECK_NO_BWRAP = '1';
    try {
      // A new executor: its process starts in the unjailed mode.
      const r = await execute({ executor: 'unjailed-trace', trace: true, code: 'await page.evaluate(() => 1); return 1;' });
      expect(r).toMatchObject({ success: true, stderr: '' });
      const file = await te.api(`/browsers/${id}/fs/read_file?path=${encodeURIComponent(r.trace_path!)}`);
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(0, 2)
          .toString(),
      ).toBe('PK');
    } finally {
      // Left running: one of the 8 the next test needs.
      delete process.env.BROWSERDECK_NO_BWRAP;
    }
  });

  it('a 9th named executor is 409 with the executor list; deleting one makes room', async () => {
    const existing = (await list()).filter((e) => e.name !== 'default').length;
    for (let i = existing; i < 8; i++) expect(await execute({ executor: `fill-${i}`, code: 'return 1' })).toMatchObject({ success: true });
    const res = await te.api(`/browsers/${id}/playwright/execute`, { method: 'POST', json: { executor: 'ninth', code: 'return 1' } });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { code: string; message: string; executors: ExecutorInfo[] };
    expect(body.code).toBe('executor_limit_reached');
    expect(body.message).toMatch(/8/);
    expect(body.executors.map((e) => e.name)[0]).toBe('default');
    expect(body.executors).toHaveLength(9);
    // `default` never counts.
    expect(await execute({ code: 'return 1' })).toMatchObject({ success: true });
    expect((await del('fill-7')).status).toBe(204);
    expect(await execute({ executor: 'ninth', code: 'return 2' })).toMatchObject({ success: true, result: 2 });
    // The earlier tests' executors stay for the later ones (each start costs a process).
    const added = (await list()).filter((e) => e.name.startsWith('fill-') || e.name === 'ninth').map((e) => e.name);
    for (const name of added) expect((await del(name)).status).toBe(204);
    expect((await list()).filter((e) => added.includes(e.name))).toEqual([]);
  });

  it('rejects bad executor names and unknown sessions', async () => {
    for (const executor of ['', 'has space', '../x', 'x'.repeat(65)]) {
      const res = await te.api(`/browsers/${id}/playwright/execute`, { method: 'POST', json: { executor, code: 'return 1' } });
      expect(res.status, executor).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_request' });
    }
    expect((await te.api('/browsers/nope/playwright/executors')).status).toBe(404);
    expect((await te.api('/browsers/nope/playwright/executors/default', { method: 'DELETE' })).status).toBe(404);
  });

  it.runIf(sandboxed)('code on a named executor is jailed too', async () => {
    const paths = { adminKey: path.join(te.dataDir, 'admin-api-key'), shadow: '/etc/shadow', dataDir: te.dataDir };
    // `serial`, already running: any named executor's process.
    const r = await execute({
      executor: 'serial',
      code: `const fs = await import('node:fs'); const out = {};
for (const [k, p] of Object.entries(${JSON.stringify(paths)})) { try { fs.readFileSync(p); out[k] = 'read'; } catch (e) { out[k] = e.code; } }
return out;`,
    });
    expect(r.result).toEqual({ adminKey: 'ENOENT', shadow: expect.stringMatching(/^(ENOENT|EACCES)$/), dataDir: 'ENOENT' });
  });

  it('a tab whose renderer died is never bound again: its executor gets a new tab, the others go on', async () => {
    const before = await execute({ executor: 'victim', code: 'return 1' });
    const pages = browser.contexts()[0].pages();
    const victim = (await Promise.all(pages.map(async (p) => [p, await targetIdOf(p)] as const))).find(([, t]) => t === before.tab!.target_id)![0];
    // What the OOM killer does to a renderer when the session's processes outgrow its memory.
    const died = new Promise((r) => victim.once('crash', r));
    const cdp = await victim.context().newCDPSession(victim);
    void cdp.send('Page.crash').catch(() => {});
    await died;
    const after = await execute({ executor: 'victim', code: 'return 2' });
    expect(after).toMatchObject({ success: true, result: 2, tab: { created: true } });
    expect(after.tab!.target_id).not.toBe(before.tab!.target_id);
    // Every lookup walks all tabs: the dead one holds up neither `default` nor a new executor.
    expect(await execute({ code: 'return 3' })).toMatchObject({ success: true, result: 3 });
    expect(await execute({ executor: 'keeper', code: 'return 4' })).toMatchObject({ success: true, result: 4 });
    expect((await del('victim')).status).toBe(204);
  });

  // Last: it ends the file's session (a second session would cost a browser and two executors more).
  it('executors end with their session', async () => {
    const marker = `${RUNNER_MARKER}=${id}`;
    await execute({ code: 'return 1' });
    await execute({ executor: 'keeper', code: 'return 1' });
    // Every executor has its process now (one per executor).
    const names = (await list()).map((e) => e.name);
    for (const executor of names) expect(await execute({ executor, code: 'return 1' })).toMatchObject({ success: true });
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect(processesWith(marker)).toHaveLength(names.length);
    await te.client.browsers.deleteByID(id);
    await expect.poll(() => processesWith(marker), POLL).toEqual([]);
  });
});
