/**
 * Issue 25 row 1: code a tenant runs in a Playwright executor, the REPL or a CDP-backed WebMCP
 * tool holds no channel into the engine that can end it. On `main` the runners had Node's `ipc`
 * stdio: `process.send(null)` threw a TypeError in the engine and `{cmd: 'NODE_HANDLE_ACK'}` hit
 * an assertion inside Node, and the engine exited (taking every tenant's browsers with it). Now
 * the channel is a pipe of length-prefixed JSON the engine validates: there is no `process.send`,
 * and bytes the code writes to the channel's fd (no JSON, a header over the size limit, a frame
 * of `null` or of Node's internal message) end only that runner, with a clear error to the call.
 * Each probe has its control (the same runner answered a normal call just before), and after
 * each the engine answers `/healthz`, the next call on the same runner works (a fresh process),
 * and another tenant's session, running since the start, still runs code; at the end, after
 * every probe, the engine still starts a new browser and runs code on it (a browser and an
 * executor started once, not after each test: each costs seconds of CPU). The engine runs as its
 * own process, every call raced against its exit, so a dying engine fails the test instead of
 * hanging it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineProcess, type EngineProcess } from '../../helpers/engine-process.js';
import { startLocalServer, type LocalServer } from '../../helpers/local-server.js';
import { usableBwrap } from '../../../src/engine/runtime/sandbox/bwrap.js';
import { RAW_PROBES } from '../../helpers/runner-probes.js';

type Json = Record<string, unknown>;
/** A tool of `GET …/webmcp/tools` as far as these tests read it. */
type ListedTool = { tool_ref: string; tool: { name: string }; source: { custom?: { namespace: string } } };
let e: EngineProcess;
let site: LocalServer;
let id: string;
/** Another session, up from the start: a runner stopped in `id` must leave it running. */
let otherId: string;
const sandboxed = Boolean(await usableBwrap());

/** What the probes' code does: write the bytes to the channel's fd and wait (only the engine ends this). */
const writeRaw = (hex: string) => `process.getBuiltinModule('fs').writeSync(3, Buffer.from('${hex}', 'hex')); await new Promise(() => {});`;
// The internal message first: on \`main\` it ended the engine whatever its handlers did (an assertion in Node's internal/child_process).
const SEND_PROBES = ["process.send({ cmd: 'NODE_HANDLE_ACK' })", 'process.send(null)'];

beforeAll(async () => {
  site = await startLocalServer({ '/shop': '<title>shop</title><h1>Shop</h1>' });
  // The message limit scaled down to 1 MiB (default 32), to show both sides of it.
  e = await startEngineProcess(['--standby', '0', '--freeze-idle-seconds', '0', '--egress-allow-loopback', '--runner-message-max-mb', '1']);
  [id, otherId] = (await Promise.all([0, 1].map(() => e.guard(e.client.browsers.create({ headless: true, timeout_seconds: 600 }))))).map((s) => s.session_id);
}, 180_000);

afterAll(async () => {
  await e?.stop();
  await site?.close();
});

const execute = (code: string, session = id) => e.guard(e.client.browsers.playwright.execute(session, { code, timeout_sec: 60 }));

async function repl(code: string): Promise<Json> {
  const res = await e.api(`/browsers/${id}/repl`, { method: 'POST', json: { code, timeout_sec: 60 } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Json;
}

/** The engine is alive, and another session's browser and runner still run code. */
async function othersCarryOn(): Promise<void> {
  expect(await e.healthy()).toBe(true);
  expect(await execute(`await page.goto('about:blank'); return 6 * 7;`, otherId)).toMatchObject({ success: true, result: 42 });
}

describe('a Playwright executor', { timeout: 300_000 }, () => {
  it('has no process.send and no NODE_CHANNEL_FD; calling it fails only the call', async () => {
    for (const probe of SEND_PROBES) {
      expect(await execute('return 1 + 1;')).toMatchObject({ success: true, result: 2 });
      const r = await execute(`${probe}; return 'sent';`);
      expect(r).toMatchObject({ success: false, error: expect.stringMatching(/process\.send is not a function/) });
      expect(await e.healthy()).toBe(true);
    }
    expect(await execute('return { send: typeof process.send, fd: process.env.NODE_CHANNEL_FD ?? null };')).toMatchObject({
      success: true,
      result: { send: 'undefined', fd: null },
    });
    await othersCarryOn();
  });

  it('stops a runner whose code writes bytes the engine refuses, with a clear error, and starts a fresh one', async () => {
    for (const [what, hex, reason] of RAW_PROBES) {
      expect(await execute('return 1 + 1;'), what).toMatchObject({ success: true, result: 2 });
      const r = await execute(writeRaw(hex));
      expect(r.success, what).toBe(false);
      expect(r.error, what).toMatch(/^the code runner sent an invalid message and was stopped/);
      expect(r.error, what).toMatch(reason);
      expect(await e.healthy()).toBe(true);
      expect(await execute('return "again";'), what).toMatchObject({ success: true, result: 'again' });
    }
    await othersCarryOn();
  });
});

describe('the message limit', { timeout: 300_000 }, () => {
  it('is in /healthz; a return value over it is a clear error of the call, under it a result', async () => {
    const health = (await (await e.api('/healthz')).json()) as { limits: { runner_channel: unknown } };
    expect(health.limits.runner_channel).toEqual({ max_message_bytes: 1024 * 1024, max_pending_bytes: 8 * 1024 * 1024 });
    expect(await execute(`return 'x'.repeat(1000 * 1000);`)).toMatchObject({ success: true, result: 'x'.repeat(1000 * 1000) });
    const over = await execute(`return 'x'.repeat(1100 * 1000);`);
    expect(over).toMatchObject({ success: false, error: expect.stringMatching(/^the returned value is too large to send: .* over the 1048576-byte limit/) });
    // The child kept to the limit itself: the same runner answers the next call.
    expect(await execute(`return 1;`)).toMatchObject({ success: true, result: 1 });
    // A header just over the limit, written by the code, ends the runner.
    const r = await execute(writeRaw('00100001'));
    expect(r.error).toMatch(/^the code runner sent an invalid message and was stopped \(a message of 1048577 bytes is over the 1048576-byte limit\)/);
    expect(await e.healthy()).toBe(true);
  });
});

describe.runIf(sandboxed)('the REPL', { timeout: 300_000 }, () => {
  it('has no process.send; calling it is an exception of the cell', async () => {
    for (const probe of SEND_PROBES) {
      expect(await repl(`repl.write('ok')`)).toMatchObject({ success: true, content: [{ text: 'ok' }] });
      const r = await repl(probe);
      expect(r).toMatchObject({ success: false, error: expect.stringMatching(/process\.send is not a function/) });
      expect(await e.healthy()).toBe(true);
    }
    const seen = await repl(`repl.write(JSON.stringify([typeof process.send, process.env.NODE_CHANNEL_FD ?? null]))`);
    expect(seen).toMatchObject({ success: true, content: [{ type: 'text', text: '["undefined",null]' }] });
    await othersCarryOn();
  });

  it('ends a REPL whose code writes bytes the engine refuses, with a clear error; the next call gets a new one', async () => {
    for (const [what, hex, reason] of RAW_PROBES) {
      const before = await repl(`repl.write('ok')`);
      expect(before, what).toMatchObject({ success: true, content: [{ text: 'ok' }] });
      const r = await repl(writeRaw(hex));
      expect(r, what).toMatchObject({ success: false, repl_terminated: true });
      expect(r.error, what).toMatch(/^the REPL sent an invalid message and was stopped/);
      expect(r.error, what).toMatch(reason);
      expect(await e.healthy()).toBe(true);
      const after = await repl(`repl.write('again')`);
      expect(after, what).toMatchObject({ success: true, content: [{ text: 'again' }] });
      expect(after.repl_id).not.toBe(before.repl_id);
    }
    await othersCarryOn();
  });
});

describe.runIf(sandboxed)('the WebMCP tool runner', { timeout: 300_000 }, () => {
  it('ends a tool runner whose tool writes bytes the engine refuses, with a clear error; the next invocation gets a new one', async () => {
    // The session's tab on a page the tools match.
    expect(await execute(`await page.goto('${site.url}/shop'); return page.url();`)).toMatchObject({ success: true });
    const base = `/browsers/${id}/webmcp`;
    const added = await e.api(`${base}/custom-tools`, {
      method: 'POST',
      json: {
        namespace: 'probe',
        source: `[
          { kind: 'cdp', tool: { name: 'ok' }, execute: async () => 'fine' },
          { kind: 'cdp', tool: { name: 'send' }, execute: async ({ probe }) => { if (probe === 'null') process.send(null); else process.send({ cmd: 'NODE_HANDLE_ACK' }); return 'sent'; } },
          { kind: 'cdp', tool: { name: 'raw' }, execute: async ({ hex }) => { (await import('node:fs')).writeSync(3, Buffer.from(hex, 'hex')); await new Promise(() => {}); } },
        ].map((d) => ({ match: { url_patterns: ['${site.url}/shop*'] }, ...d }))`,
      },
    });
    expect(added.status, await added.clone().text()).toBe(201);
    const refs = async (): Promise<Record<string, string>> => {
      const list = ((await (await e.api(`${base}/tools`)).json()) as { tools: ListedTool[] }).tools;
      return Object.fromEntries(list.filter((x) => x.source.custom?.namespace === 'probe').map((x) => [x.tool.name, x.tool_ref]));
    };
    await expect.poll(async () => Object.keys(await refs()).sort(), { timeout: 30_000 }).toEqual(['ok', 'raw', 'send']);
    const invoke = async (name: string, input: Json = {}) => {
      const res = await e.api(`${base}/invoke`, { method: 'POST', json: { tool_ref: (await refs())[name], input, timeout_sec: 60 } });
      return { status: res.status, body: (await res.json()) as Json };
    };
    for (const probe of ['ack', 'null']) {
      expect((await invoke('ok')).body).toMatchObject({ status: 'completed', output: 'fine' });
      const r = await invoke('send', { probe });
      expect(r.body).toMatchObject({ status: 'error', error_text: expect.stringContaining('process.send is not a function') });
      expect(await e.healthy()).toBe(true);
    }
    for (const [what, hex, reason] of RAW_PROBES) {
      expect((await invoke('ok')).body, what).toMatchObject({ status: 'completed', output: 'fine' });
      const r = await invoke('raw', { hex });
      expect(r.status, what).toBe(504);
      expect(r.body, what).toMatchObject({ code: 'outcome_unknown' });
      expect(r.body.message, what).toMatch(/the tool runner sent an invalid message and was stopped/);
      expect(r.body.message, what).toMatch(reason);
      expect(await e.healthy()).toBe(true);
    }
    expect((await invoke('ok')).body).toMatchObject({ status: 'completed', output: 'fine' });
    await othersCarryOn();
  });
});

// Last in the file: after every probe above.
describe('after every probe', { timeout: 300_000 }, () => {
  it('the engine still starts a browser and runs code on it', async () => {
    const fresh = await e.guard(e.client.browsers.create({ headless: true, timeout_seconds: 120 }));
    try {
      expect(await execute(`await page.goto('about:blank'); return 6 * 7;`, fresh.session_id)).toMatchObject({ success: true, result: 42 });
    } finally {
      await e.guard(e.client.browsers.deleteByID(fresh.session_id));
    }
    await othersCarryOn();
  });
});
